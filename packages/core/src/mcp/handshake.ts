import * as z from "zod";
import type { Db } from "../dynamo/client";
import { putMcpClient } from "../dynamo/mcp-clients";
import type { McpClientRecord } from "../dynamo/mcp-clients";

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

/** Keeps what a 2025-era client declares at its handshake, for its later requests (each served afresh). */
export async function keepHandshake(db: Db, agentId: string, body: unknown): Promise<void> {
  const handshake = legacyHandshake(body);
  if (handshake) await putMcpClient(db, agentId, declaredClient(handshake), Date.now() + CLIENT_KEPT_MS);
}
