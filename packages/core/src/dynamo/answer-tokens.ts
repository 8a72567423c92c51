import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { AnswerToken } from "../answer-token/schema";
import type { Db } from "./client";
import { Index, Keys } from "./keys";
import { mergedPage } from "./merged-page";
import { attempt } from "./write";

const answerTokenItem = (token: AnswerToken) => ({ ...Keys.answerToken(token.id), ...Index.answerTokens, gsi1sk: `${token.createdAt}#${token.id}`, answerToken: token });

export async function insertAnswerToken(db: Db, token: AnswerToken): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: answerTokenItem(token), ConditionExpression: "attribute_not_exists(pk)" }));
}

/** The token as stored now (read consistently: a revoked token is gone for every reader at once). */
export async function getAnswerToken(db: Db, id: string): Promise<AnswerToken | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.answerToken(id), ConsistentRead: true }));
  return Item ? AnswerToken.parse(Item.answerToken) : undefined;
}

export async function listAnswerTokens(db: Db, limit: number, cursor: string | undefined) {
  const page = await mergedPage(db, [{ index: "gsi1", pk: Index.answerTokens.gsi1pk }], "descending", limit, cursor);
  if (page === "invalid_cursor") return page;
  const answerTokens = page.items.map((item) => AnswerToken.parse(item.answerToken));
  return page.nextCursor ? { answerTokens, nextCursor: page.nextCursor } : { answerTokens };
}

/** Deletes a token, which revokes it; "not_found" when there was none (never made, or revoked already). */
export async function deleteAnswerToken(db: Db, id: string): Promise<"ok" | "not_found" | "contention"> {
  const outcome = await attempt(() =>
    db.doc.send(new DeleteCommand({ TableName: db.table, Key: Keys.answerToken(id), ConditionExpression: "attribute_exists(pk)" })),
  );
  return outcome.kind === "refused" ? "not_found" : outcome.kind;
}

/** A transaction's check that the answering token still exists (not revoked), beside the write it authorises. */
export const answerTokenHeld = (db: Db, id: string) => ({
  ConditionCheck: { TableName: db.table, Key: Keys.answerToken(id), ConditionExpression: "attribute_exists(pk)" },
});
