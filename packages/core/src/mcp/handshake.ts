import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { Db } from "../dynamo/client";
import { putMcpClient } from "../dynamo/mcp-clients";
import type { McpClientKey, McpClientRecord } from "../dynamo/mcp-clients";

/** How long a 2025-era client's handshake is kept for its later requests: a client reconnecting declares itself again. */
const CLIENT_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

const HandshakeParams = z.looseObject({ protocolVersion: z.string().max(100), capabilities: z.record(z.string(), z.unknown()).optional() });

/** A 2025-era initialize request's params (2026-07-28 clients declare themselves on every request instead). */
function legacyHandshake(body: unknown) {
  const message = body as { method?: unknown; params?: unknown } | null;
  if (message?.method !== "initialize") return undefined;
  const params = HandshakeParams.safeParse(message.params);
  return params.success ? params.data : undefined;
}

/** A client's handshake as kept for its later requests: a 2025-06-18 `elicitation: {}` means forms. */
export function declaredClient(params: { protocolVersion: string; capabilities?: Record<string, unknown> }): McpClientRecord {
  const elicitation = params.capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  const modes = elicitation && { form: elicitation.form !== undefined || elicitation.url === undefined, url: elicitation.url !== undefined };
  return { protocolVersion: params.protocolVersion, sampling: params.capabilities?.sampling !== undefined, ...(modes ? { elicitation: modes } : {}) };
}

export const SESSION_HEADER = "mcp-session-id";
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What a session id toolgate never gave names: no client, so nothing it declared (no item is ever kept under it). */
const UNKNOWN_SESSION = "unknown";

/**
 * Which of the agent's 2025-era clients sent a request: the session id toolgate gave it at its handshake, which it
 * sends back on every request after. Without one (a client connected before toolgate gave them), the agent's last.
 */
export function clientOf(request: Request, agentId: string): McpClientKey {
  const session = request.headers.get(SESSION_HEADER);
  if (session === null) return { agentId };
  return { agentId, sessionId: SESSION_ID.test(session) ? session : UNKNOWN_SESSION };
}

/**
 * Keeps what a 2025-era client declares at its handshake, for its later requests (each served afresh), under a
 * session id of its own: the id it is to send back, for the handshake's answer to give it.
 */
export async function keepHandshake(db: Db, agentId: string, body: unknown): Promise<string | undefined> {
  const handshake = legacyHandshake(body);
  if (!handshake) return undefined;
  const sessionId = randomUUID();
  await putMcpClient(db, { agentId, sessionId }, declaredClient(handshake), Date.now() + CLIENT_KEPT_MS);
  return sessionId;
}
