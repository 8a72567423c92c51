import { randomUUID } from "node:crypto";
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError } from "@modelcontextprotocol/server";
import type { Server, ServerContext } from "@modelcontextprotocol/server";
import { putClientReply, takeClientReply } from "../dynamo/mcp-clients";
import type { ClientReply } from "../dynamo/mcp-clients";
import type { Db } from "../dynamo/client";
import { cannotRelay, isRelayed } from "../executor/relay";
import type { CallRelay, ClientCapabilities, InputRequests, RelayedRequest } from "../executor/relay";
import { declaredClient } from "./handshake";
import type { DeclaredClient } from "./handshake";

const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** The ids of requests toolgate sends an agent's client: its replies to them are toolgate's, not the SDK's. */
const REQUEST_ID_PREFIX = "toolgate-";
/** How often a call waiting on its client's reply looks in the store, for a reply that reached another instance. */
const POLL_MS = 500;
/** How long a reply nobody collects stays in the store. */
const REPLY_TTL_MS = 60 * 60 * 1000;
/** The largest reply kept (a store item holds 400 KB); a larger one reaches the call as an error saying so. */
const MAX_REPLY_BYTES = 256 * 1024;

/** Calls of this process waiting on a reply, woken as soon as it reaches this process. */
const waiting = new Map<string, () => void>();
const waiterKey = (agentId: string, requestId: string) => `${agentId} ${requestId}`;

const nextLook = (agentId: string, requestId: string, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const key = waiterKey(agentId, requestId);
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      if (waiting.get(key) === wake) waiting.delete(key);
      resolve();
    };
    const timer = setTimeout(wake, POLL_MS);
    waiting.set(key, wake);
    signal.addEventListener("abort", wake, { once: true });
  });

/** The client's reply to one request, wherever it was received: looked for in the store until it is there or the signal aborts. */
async function replyTo(db: Db, agentId: string, requestId: string, signal: AbortSignal): Promise<ClientReply> {
  for (;;) {
    const reply = await takeClientReply(db, agentId, requestId);
    if (reply) return reply;
    signal.throwIfAborted();
    await nextLook(agentId, requestId, signal);
  }
}

type JsonRpcReply = { jsonrpc: "2.0"; id: string; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

const isReplyToToolgate = (message: unknown): message is JsonRpcReply => {
  const candidate = message as Partial<JsonRpcReply> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.id === "string" &&
    candidate.id.startsWith(REQUEST_ID_PREFIX) &&
    ("result" in candidate || "error" in candidate) &&
    !("method" in candidate)
  );
};

/** The replies a POST carries when it is nothing but replies to requests toolgate sent (a 2025-era client answering on a new POST). */
export function repliesIn(body: unknown): JsonRpcReply[] | undefined {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every(isReplyToToolgate) ? messages : undefined;
}

/** Keeps each reply for the call waiting on it, on this instance or another, and wakes it here if it is here. */
export async function keepReplies(db: Db, agentId: string, replies: JsonRpcReply[]): Promise<void> {
  for (const { id, result, error } of replies) {
    const whole: ClientReply = error ? { error } : { result: result ?? {} };
    const reply: ClientReply =
      Buffer.byteLength(JSON.stringify(whole), "utf8") > MAX_REPLY_BYTES
        ? { error: { code: -32600, message: `The client's reply was larger than toolgate carries (${MAX_REPLY_BYTES / 1024} KiB).` } }
        : whole;
    await putClientReply(db, agentId, id, reply, Date.now() + REPLY_TTL_MS);
    waiting.get(waiterKey(agentId, id))?.();
  }
}

/** What the client must have declared to take a request: its sampling, its roots, or its elicitation in the request's mode. */
function takes(client: DeclaredClient | undefined, method: RelayedRequest, params: Record<string, unknown>) {
  if (method === "sampling/createMessage") return client?.sampling === true;
  if (method === "roots/list") return client?.roots === true;
  return params.mode === "url" ? client?.elicitation?.url === true : client?.elicitation?.form === true;
}

/** What a client declared of what toolgate carries, as the client capabilities toolgate declares for its call. */
function carried({ elicitation, sampling, roots }: DeclaredClient): ClientCapabilities {
  const modes = elicitation && { ...(elicitation.form ? { form: {} } : {}), ...(elicitation.url ? { url: {} } : {}) };
  return { ...(modes ? { elicitation: modes } : {}), ...(sampling ? { sampling: {} } : {}), ...(roots ? { roots: {} } : {}) };
}

/** A 2026-07-28 client as its request declares it (its capabilities ride every request). */
function modernClient(envelope: Record<string, unknown>): DeclaredClient {
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  return declaredClient({ protocolVersion: String(envelope[PROTOCOL_VERSION_META_KEY] ?? ""), ...(capabilities ? { capabilities } : {}) });
}

/** Whether a client takes every one of these requests (at least one): each a question or sampling request it declared. */
const takesAll = (client: DeclaredClient, requests: InputRequests) =>
  Object.keys(requests).length > 0 &&
  Object.values(requests).every(({ method, params }) => isRelayed(method) && takes(client, method, params ?? {}));

/**
 * A relay that can say when everything it was given to send has gone out (before the call's result goes), and whether
 * it sent anything (which makes the call's response a stream).
 */
export type ClientRelay = CallRelay & { settled(): Promise<void>; streamed(): boolean };

export type RelayContext = {
  db: Db;
  agentId: string;
  /** The tools/call's own server instance, connected to its response's transport. */
  server: Server;
  ctx: ServerContext;
  /** Whether this deployment's responses reach the client as they are written (npm start), rather than whole at the end. */
  streams: boolean;
  /** The agent's 2025-era client as it declared itself (its session id says), if it is one. */
  client: DeclaredClient | undefined;
  /** The least severe log level that client asked for, read once per call and only when needed. */
  logLevel: () => Promise<string | undefined>;
};

/**
 * The relay of one tools/call to the agent's client on its response: progress when the request carried a
 * progressToken; log messages at or above the client's level (a 2025-era client's logging/setLevel, a 2026-07-28
 * request's own level; none without one); and, to a 2025-era client that declared it, on a streaming response, the
 * upstream's questions and sampling requests, whose replies come back on another POST, matched through the store.
 */
export function clientRelay({ db, agentId, server, ctx, streams, client, logLevel }: RelayContext): ClientRelay {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope !== undefined;
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const requestLevel = modern ? (envelope[LOG_LEVEL_META_KEY] as string | undefined) : undefined;
  const logThreshold = async () => (modern ? requestLevel : ((await logLevel()) ?? LOG_LEVELS[0]));
  /** Notifications go out one after another, in the order they came, and all before the call's result. */
  let sent = Promise.resolve();
  let streamed = false;
  const inOrder = (send: () => Promise<void>) => (sent = sent.then(send).catch(() => {}));
  const notify = (notification: Parameters<ServerContext["mcpReq"]["notify"]>[0]) => {
    streamed = true;
    return ctx.mcpReq.notify(notification);
  };
  return {
    wantsProgress: progressToken !== undefined,
    logLevel: modern ? requestLevel : LOG_LEVELS[0],
    progress: (params) =>
      inOrder(async () => {
        if (progressToken !== undefined) await notify({ method: "notifications/progress", params: { ...params, progressToken } });
      }),
    log: (params) =>
      inOrder(async () => {
        const threshold = await logThreshold();
        if (threshold === undefined || LOG_LEVELS.indexOf(params.level) < LOG_LEVELS.indexOf(threshold)) return;
        await notify({ method: "notifications/message", params: params as { level: "info"; data: unknown } });
      }),
    settled: () => sent,
    streamed: () => streamed,
    takesInput: (requests) => modern && takesAll(modernClient(envelope), requests),
    declares: modern ? carried(modernClient(envelope)) : undefined,
    request: async (method, params, signal) => {
      if (modern) throw cannotRelay(method, "This client speaks MCP 2026-07-28 and does not declare this kind of request, which it would answer through its own input round trip.");
      if (!streams) throw cannotRelay(method, "This deployment does not stream MCP responses (see TOOLGATE_MCP_STREAMING).");
      if (!takes(client, method, params)) throw cannotRelay(method);
      const id = `${REQUEST_ID_PREFIX}${randomUUID()}`;
      streamed = true;
      await server.transport!.send({ jsonrpc: "2.0", id, method, params }, { relatedRequestId: ctx.mcpReq.id });
      const reply = await replyTo(db, agentId, id, AbortSignal.any([signal, ctx.mcpReq.signal]));
      if ("error" in reply) throw new ProtocolError(reply.error.code, reply.error.message, reply.error.data);
      return reply.result;
    },
  };
}

/** The value of `read`, read the first time it is asked for and then kept. */
export function once<T>(read: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= read());
}
