import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import type { Db } from "./client";
import { Keys } from "./keys";
import { attempt } from "./write";

/** A reply to a request toolgate sent the client: its JSON-RPC result or error, as it came. */
export const ClientReply = z.union([
  z.object({ result: z.record(z.string(), z.unknown()) }),
  z.object({ error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }) }),
]);
export type ClientReply = z.infer<typeof ClientReply>;

/** One 2025-era client: the agent's, under the session id toolgate gave it at its handshake. */
export type McpClientKey = { agentId: string; sessionId: string };

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

/** The log level a client with a session id last set (what it declared travels in the id itself). */
export async function putMcpClientLogLevel(db: Db, { agentId, sessionId }: McpClientKey, logLevel: string, expiresAtMs: number): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...Keys.mcpClient(agentId, sessionId), logLevel, expiresAt: epochSeconds(expiresAtMs) } }));
}

export async function getMcpClientLogLevel(db: Db, { agentId, sessionId }: McpClientKey): Promise<string | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.mcpClient(agentId, sessionId), ConsistentRead: true }));
  return typeof Item?.logLevel === "string" ? Item.logLevel : undefined;
}

/** Keeps the first reply to a request; a second one (a client retrying its POST) changes nothing. */
export async function putClientReply(db: Db, agentId: string, requestId: string, reply: ClientReply, expiresAtMs: number): Promise<void> {
  await attempt(() =>
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: { ...Keys.clientReply(agentId, requestId), reply, expiresAt: epochSeconds(expiresAtMs) },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    ),
  );
}

/** The reply, once it is there, taken out of the store (read consistently, then deleted). */
export async function takeClientReply(db: Db, agentId: string, requestId: string): Promise<ClientReply | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.clientReply(agentId, requestId), ConsistentRead: true }));
  if (!Item) return undefined;
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: Keys.clientReply(agentId, requestId) }));
  const parsed = ClientReply.safeParse(Item.reply);
  return parsed.success ? parsed.data : { error: { code: -32603, message: "The client's reply could not be read." } };
}
