import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { Message } from "../message/schema";
import type { Db } from "./client";
import { Keys } from "./keys";
import { queryPartitionPage } from "./query";

export async function putMessage(db: Db, message: Message): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...Keys.message(message.to, message.messageId), message } }));
}

export async function listMessages(db: Db, agentId: string, limit: number, cursor: string | undefined) {
  const page = await queryPartitionPage(db, { pk: Keys.message(agentId, "").pk, skPrefix: "MSG#", newestFirst: false }, limit, cursor);
  if (page === "invalid_cursor") return page;
  const messages = page.items.map((item) => Message.parse(item.message));
  return page.nextCursor ? { messages, nextCursor: page.nextCursor } : { messages };
}
