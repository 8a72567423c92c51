import { invalidCursor } from "../error";
import type { Db } from "../dynamo/client";
import { getAgent } from "../dynamo/agents";
import { listMessages, putMessage } from "../dynamo/messages";
import { createId } from "../id";
import { messageError } from "./errors";
import type { Message } from "./schema";

export { Message } from "./schema";
export { MESSAGE_ERRORS, messageError } from "./errors";

export async function send(db: Db, from: string, to: string, content: string, now: string): Promise<Message> {
  const recipient = await getAgent(db, to);
  if (!recipient) throw messageError("agent_not_found", `There is no agent "${to}" to send the message to.`);
  if (recipient.status !== "active") throw messageError("agent_terminated", `The agent "${to}" is terminated and cannot receive messages.`);
  return deliver(db, { messageId: createId("msg"), to, from, content, createdAt: now });
}

export async function deliver(db: Db, message: Message): Promise<Message> {
  await putMessage(db, message);
  return message;
}

export async function list(db: Db, agentId: string, limit: number, cursor: string | undefined) {
  const page = await listMessages(db, agentId, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  return page;
}
