import { uncontended } from "../contention";
import { invalidCursor } from "../error";
import type { Db } from "../dynamo/client";
import { deleteAnswerToken, getAnswerToken, insertAnswerToken, listAnswerTokens } from "../dynamo/answer-tokens";
import { createId } from "../id";
import type { TokenSigner } from "../agent/token";
import { answerTokenError } from "./errors";
import type { AnswerToken, AnswerTokenInput } from "./schema";

export { AnswerToken, AnswerTokenInput, AnswerTokenListQuery } from "./schema";
export { ANSWER_TOKEN_ERRORS, answerTokenError } from "./errors";

export type IssuedAnswerToken = AnswerToken & { token: string };

/** A new answering token: stored by its id and name, the signed token handed back once and never kept. */
export async function create(db: Db, tokens: TokenSigner, input: AnswerTokenInput, createdBy: string, now: string): Promise<IssuedAnswerToken> {
  const answerToken: AnswerToken = { id: createId("atk"), name: input.name, createdBy, createdAt: now };
  await insertAnswerToken(db, answerToken);
  return { ...answerToken, token: await tokens.signAnswerer({ answerTokenId: answerToken.id }) };
}

/** The answering token as stored now, or undefined once revoked: read on every use, never from a process's copy. */
export const current = (db: Db, id: string): Promise<AnswerToken | undefined> => getAnswerToken(db, id);

export async function list(db: Db, limit: number, cursor: string | undefined) {
  const page = await listAnswerTokens(db, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  return page;
}

/** Revokes a token: it is deleted, so every instance refuses it from the next request on. */
export async function revoke(db: Db, id: string): Promise<void> {
  if ((await uncontended(db.contentionDeadlineMs, () => deleteAnswerToken(db, id))) === "not_found")
    throw answerTokenError("answer_token_not_found", `There is no answering token "${id}": it was never made, or it was revoked already.`);
}
