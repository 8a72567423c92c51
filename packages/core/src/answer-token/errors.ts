import { errorCatalog } from "../error";

/** Answering tokens: a name that is not one, a token that is not there (never created, or revoked). */
export const ANSWER_TOKEN_ERRORS = {
  invalid_answer_token: 400,
  answer_token_not_found: 404,
} as const;

export const answerTokenError = errorCatalog(ANSWER_TOKEN_ERRORS);
