import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { Message } from "../message/schema";
import type { Db } from "./client";
import { decodeCursor, encodeCursor } from "./cursor";
import { Keys } from "./keys";

export async function putMessage(db: Db, message: Message): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...Keys.message(message.to, message.messageId), message } }));
}

export async function listMessages(db: Db, agentId: string, limit: number, cursor: string | undefined): Promise<{ messages: Message[]; nextCursor?: string }> {
  const pk = Keys.message(agentId, "").pk;
  const page = await db.doc.send(
    new QueryCommand({
      TableName: db.table,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": "MSG#" },
      ScanIndexForward: true,
      Limit: limit,
      ExclusiveStartKey: cursor === undefined ? undefined : decodeCursor(cursor, pk, "MSG#"),
    }),
  );
  const messages = (page.Items ?? []).map((item) => Message.parse(item.message));
  return page.LastEvaluatedKey ? { messages, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { messages };
}
