import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { ArgumentSeal } from "../call/seal";
import type { Db } from "../dynamo/client";
import { getMcpClientLogLevel, putMcpClientLogLevel } from "../dynamo/mcp-clients";

export const SESSION_HEADER = "mcp-session-id";
/** How long a client's log level is kept after it last set one. */
const LOG_LEVEL_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

const HandshakeParams = z.looseObject({ protocolVersion: z.string().max(100), capabilities: z.record(z.string(), z.unknown()).optional() });

/** A 2025-era initialize request's params (2026-07-28 clients declare themselves on every request instead). */
function legacyHandshake(body: unknown) {
  const message = body as { method?: unknown; params?: unknown } | null;
  if (message?.method !== "initialize") return undefined;
  const params = HandshakeParams.safeParse(message.params);
  return params.success ? params.data : undefined;
}

/**
 * What a client declared: its protocol version, whether it takes questions (forms, URLs), sampling requests and
 * requests for its roots (a session sealed before roots were carried declared none).
 */
const Declared = z.object({ protocolVersion: z.string(), elicitation: z.object({ form: z.boolean(), url: z.boolean() }).optional(), sampling: z.boolean(), roots: z.boolean().default(false) });
export type DeclaredClient = z.infer<typeof Declared>;

/** What a client's capabilities declare: a 2025-06-18 `elicitation: {}` means forms. */
export function declaredClient(params: { protocolVersion: string; capabilities?: Record<string, unknown> }): DeclaredClient {
  const elicitation = params.capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  const modes = elicitation && { form: elicitation.form !== undefined || elicitation.url === undefined, url: elicitation.url !== undefined };
  return {
    protocolVersion: params.protocolVersion,
    sampling: params.capabilities?.sampling !== undefined,
    roots: params.capabilities?.roots !== undefined,
    ...(modes ? { elicitation: modes } : {}),
  };
}

/** What a session id holds, sealed (AEAD: tampering opens nothing): whose client it is, which one, and what it declared. */
type SessionState = { kind: "toolgate/mcp-client"; agentId: string; id: string; client: DeclaredClient };

/**
 * Which of the agent's 2025-era clients sent a request, and what it declared: one whose handshake gave it a session
 * id, which it sends back on every request (MCP says it must); or one that sends none, or an id toolgate did not give
 * this agent (`unknown`), which declared nothing.
 */
export type ClientSession = { kind: "session"; agentId: string; id: string; declared: DeclaredClient } | { kind: "unknown"; agentId: string };

/**
 * The session id a 2025-era handshake's answer gives its client: what the client declared, sealed, so any instance
 * reads it from the client's next request, and nothing is stored for it.
 */
export function handshakeSession(seal: ArgumentSeal, agentId: string, body: unknown): string | undefined {
  const handshake = legacyHandshake(body);
  if (!handshake) return undefined;
  const state: SessionState = { kind: "toolgate/mcp-client", agentId, id: randomUUID(), client: declaredClient(handshake) };
  return seal.seal(state);
}

export function clientOf(seal: ArgumentSeal, request: Request, agentId: string): ClientSession {
  const sessionId = request.headers.get(SESSION_HEADER);
  const state = sessionId === null ? undefined : (seal.open(sessionId) as Partial<SessionState> | undefined);
  const declared = Declared.safeParse(state?.client);
  if (state?.kind !== "toolgate/mcp-client" || state.agentId !== agentId || typeof state.id !== "string" || !declared.success) return { kind: "unknown", agentId };
  return { kind: "session", agentId, id: state.id, declared: declared.data };
}

/** The least severe log level the client asked for (logging/setLevel); unset, or a client toolgate does not know, none. */
export async function logLevelOf(db: Db, session: ClientSession): Promise<string | undefined> {
  return session.kind === "session" ? getMcpClientLogLevel(db, { agentId: session.agentId, sessionId: session.id }) : undefined;
}

/** Keeps the level a client's logging/setLevel asks for, for its later requests; a client toolgate does not know keeps none. */
export async function keepLogLevel(db: Db, session: ClientSession, level: string): Promise<void> {
  if (session.kind === "session") await putMcpClientLogLevel(db, { agentId: session.agentId, sessionId: session.id }, level, Date.now() + LOG_LEVEL_KEPT_MS);
}
