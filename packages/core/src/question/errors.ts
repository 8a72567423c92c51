import { errorCatalog } from "../error";

export const QUESTION_ERRORS = {
  invalid_answer: 400,
  question_not_found: 404,
  not_awaiting_answer: 409,
} as const;

export const questionError = errorCatalog(QUESTION_ERRORS);
