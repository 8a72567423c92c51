import type { GuardDeps } from "../guard/index";
import type { Agent } from "../agent/schema";
import type { ClientSession } from "./handshake";
import { closeStream, openStream, TooManyStreamsError } from "./streams";
import type { AgentStream, ListKind, StreamNotification } from "./streams";

/** How long a session's subscriptions wait for its stream (GET /mcp) on this instance before they are let go. */
const STREAMLESS_GRACE_MS = 30_000;
/** A comment line this often keeps an idle stream from being cut by a proxy. */
const KEEP_ALIVE_MS = 15_000;
const EVERY_LIST: ReadonlySet<ListKind> = new Set(["tools", "resources", "prompts"]);

type Sink = { send(notification: StreamNotification): void; close(): void };

/**
 * A 2025-era session in this process: its own stream once the client opened it (the sink), and its subscriptions. A
 * session that subscribed before opening its stream (a client may do both at once) is kept STREAMLESS_GRACE_MS for it.
 */
type SessionStream = AgentStream & { key: string; sink?: Sink; grace?: NodeJS.Timeout };

const sessions = new Map<string, SessionStream>();

const keyOf = (agentId: string, sessionId: string) => `${agentId}/${sessionId}`;

function endSession(entry: SessionStream) {
  if (sessions.get(entry.key) === entry) sessions.delete(entry.key);
  clearTimeout(entry.grace);
  const sink = entry.sink;
  entry.sink = undefined;
  closeStream(entry);
  sink?.close();
}

function waitForStream(entry: SessionStream) {
  clearTimeout(entry.grace);
  entry.grace = setTimeout(() => endSession(entry), STREAMLESS_GRACE_MS).unref();
}

/** The session's entry in this process, if it has one. */
export const knownSessionStream = (agentId: string, sessionId: string): AgentStream | undefined => sessions.get(keyOf(agentId, sessionId));

/** The session's entry in this process, made (and counted among the agent's streams) if it has none yet. */
export function sessionStream(deps: GuardDeps, agent: Agent, sessionId: string): AgentStream {
  const key = keyOf(agent.id, sessionId);
  const known = sessions.get(key);
  if (known) return known;
  const entry: SessionStream = {
    key,
    deps,
    agent,
    lists: EVERY_LIST,
    subscriptions: new Map(),
    send: (notification) => entry.sink?.send(notification),
    end: () => endSession(entry),
  };
  openStream(entry);
  sessions.set(key, entry);
  waitForStream(entry);
  return entry;
}

const jsonRpcError = (status: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status });

/** An event stream of JSON-RPC notifications; `closed` is told once, however it ends (the client leaving included). */
function eventStream(signal: AbortSignal, closed: () => void): { response: Response; sink: Sink } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const write = (frame: string) => {
    if (open) controller.enqueue(encoder.encode(frame));
  };
  const keepAlive = setInterval(() => write(": keepalive\n\n"), KEEP_ALIVE_MS).unref();
  const finish = () => {
    if (!open) return;
    open = false;
    clearInterval(keepAlive);
    signal.removeEventListener("abort", finish);
    closed();
  };
  const body = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
      started.enqueue(encoder.encode(": stream open\n\n"));
    },
    cancel: finish,
  });
  signal.addEventListener("abort", finish, { once: true });
  const sink: Sink = {
    send: (notification) => write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", ...notification })}\n\n`),
    close: () => {
      const wasOpen = open;
      finish();
      if (wasOpen) controller.close();
    },
  };
  const headers = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" };
  return { response: new Response(body, { status: 200, headers }), sink };
}

/**
 * GET /mcp of a 2025-era client with its session: the session's own stream on this instance, over which toolgate sends
 * what changed for the agent (its lists, the resources the session subscribed to). A second GET of the session takes
 * its place (the first is closed). Closing it ends the session's subscriptions. Past the agent's limit of streams, 429.
 */
export function openSessionStream(request: Request, deps: GuardDeps, agent: Agent, session: Extract<ClientSession, { kind: "session" }>): Response {
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) return jsonRpcError(406, "Not Acceptable: a session's stream is an event stream (Accept: text/event-stream).");
  let entry: SessionStream;
  try {
    entry = sessionStream(deps, agent, session.id) as SessionStream;
  } catch (error) {
    if (error instanceof TooManyStreamsError) return jsonRpcError(429, error.message);
    throw error;
  }
  clearTimeout(entry.grace);
  entry.agent = agent;
  const previous = entry.sink;
  const { response, sink } = eventStream(request.signal, () => {
    if (entry.sink === sink) endSession(entry);
  });
  entry.sink = sink;
  previous?.close();
  return response;
}
