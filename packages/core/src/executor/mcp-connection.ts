// The MCP executor's connections: reached only through `await import("./mcp")`, like the executor itself.
import { createHash } from "node:crypto";
import { Client, isInitializedNotification, ProtocolError, ProtocolErrorCode, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { scrubSecrets, scrubText } from "../call/redact";
import { ToolgateError } from "../error";
import { executorError } from "./errors";
import { MAX_RESPONSE_BYTES } from "./http";
import { AnswerTooLarge, pooledFetch } from "./pooled-fetch";
import { HELD_REQUEST_KEY, releaseHeldCalls } from "./held";
import { withResultTypes } from "./mcp-result-type";
import { cannotRelay, InputRequired, RelayRefusal } from "./relay";
import type { RelayedRequest, ServedCall } from "./relay";

export type { ServedCall } from "./relay";
import { resolveHeaders } from "./secrets";
import type { SecretSource } from "./secrets";
import { timedOut } from "./timeout";
import type { McpExecutor } from "./schema";

/** Servers (URL and headers) whose idle connections are kept, and idle connections kept per server. */
const MAX_SERVERS = 64;
const MAX_IDLE_PER_SERVER = 8;
const CLIENT_INFO = { name: "toolgate", version: "1.0.0" };
/** What toolgate can carry to an agent's client; whether this call's client takes it is decided when a request comes. */
const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} };


/**
 * A connected client and the call it serves now. A connection serves one call at a time and has its own session:
 * whatever its server sends, on a call's response or on the session's own stream, belongs to the call it serves, and
 * reaches that call's people; between calls, nothing does (a question is refused, a log message dropped).
 * `ownStream`: the session's own stream, which its requests wait to be asked for (see callStreamsOnly). `broke`: ends
 * the work it serves now with the error (a stream past its bytes, which the transport would only report, not fail on).
 */
export type Connection = { key: string; client: Client; serving?: ServedCall; ownStream?: OwnStream; broke?: (error: unknown) => void };

/** The session's own stream, once its handshake is done: whether it has been asked for (opened, refused or failed). */
type OwnStream = { asked: Promise<void>; settle: () => void };

const ownStream = (): OwnStream => {
  let settle!: () => void;
  const asked = new Promise<void>((resolve) => (settle = resolve));
  return { asked, settle };
};

/**
 * A request the upstream puts to the client, carried to the agent's (its params and the answer scrubbed of the
 * executor's secrets). A 2026-07-28 client that takes it answers it through its own input round trip, the call held
 * open meanwhile. A question in a form the agent's client cannot take goes to the operators (first, when the role
 * says so); a question for a secret (URL mode) only ever to the agent's client.
 */
export async function relayed(scope: ServedCall | undefined, method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) {
  if (!scope) throw cannotRelay(method);
  const asked = scrubSecrets(params, scope.secrets);
  if (scope.hold && !scope.operatorsFirst && scope.relay?.takesInput({ [HELD_REQUEST_KEY]: { method, params: asked } }))
    return scrubSecrets(await scope.hold(method, asked, signal), scope.secrets);
  const operators = method === "elicitation/create" && params.mode !== "url" ? scope.operators : undefined;
  const toOperators = async () => {
    const answer = operators && (await operators(asked, signal));
    if (!answer) throw cannotRelay(method);
    return answer;
  };
  if (!scope.relay || (operators && scope.operatorsFirst)) return toOperators();
  try {
    return scrubSecrets(await scope.relay.request(method, asked, signal), scope.secrets);
  } catch (error) {
    if (error instanceof RelayRefusal && operators) return toOperators();
    throw error;
  }
}

function relaying(connection: Connection) {
  const { client } = connection;
  client.setRequestHandler("elicitation/create", (request, ctx) => relayed(connection.serving, "elicitation/create", request.params, ctx.mcpReq.signal) as never);
  client.setRequestHandler("sampling/createMessage", (request, ctx) => relayed(connection.serving, "sampling/createMessage", request.params, ctx.mcpReq.signal) as never);
  client.setNotificationHandler("notifications/message", async (notification) => {
    const scope = connection.serving;
    await scope?.relay?.log(scrubSecrets(notification.params, scope.secrets));
  });
}

/**
 * The transport's fetch for one connection: each request carries a token of its own for the call the connection serves, and
 * each answer is read with its results' resultType (withResultTypes). A 2025-era session's own stream (a GET without
 * Last-Event-ID, which the transport opens after the handshake) is where a server on the v1 SDK sends what relates to
 * no request of the client (its questions, sampling requests and some log messages): it is asked for before any other
 * request goes out, so nothing sent there during the first call is lost, and it never keeps the process alive.
 */
const callStreamsOnly =
  (connection: Connection) =>
  async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(connection.serving?.callToken?.() ?? {})) headers.set(name, value);
    await connection.serving?.admitted;
    const opensOwnStream = init.method === "GET" && !headers.has("last-event-id");
    if (!opensOwnStream) await connection.ownStream?.asked;
    const answering = pooledFetch(input, { ...init, headers }, { maxBodyBytes: MAX_RESPONSE_BYTES, holdsProcess: !opensOwnStream });
    if (opensOwnStream) void answering.then(connection.ownStream?.settle, connection.ownStream?.settle);
    const response = await answering;
    if (response.status === 202 && endsHandshake(init.body)) connection.ownStream = ownStream();
    return withResultTypes(response, (error) => error instanceof AnswerTooLarge && connection.broke?.(error));
  };

const endsHandshake = (body: RequestInit["body"]) => typeof body === "string" && body.includes("notifications/initialized") && isInitializedNotification(JSON.parse(body));

/** Idle connections per URL and headers (secret values included), the most recently used server last; a call takes one or connects anew. */
const idle = new Map<string, Connection[]>();

const keyOf = (url: string, headers: Record<string, string>) =>
  createHash("sha256").update(JSON.stringify([url, Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))])).digest("base64url");

const close = (connection: Connection) => {
  connection.ownStream?.settle();
  return connection.client.close().catch(() => {});
};

/** A stream's reconnection, on a timer that does not keep the process alive. */
const unrefTimer = (reconnect: () => void, delay: number) => {
  const timer = setTimeout(reconnect, delay).unref();
  return () => clearTimeout(timer);
};

/** An idle connection to the server, or a new one; either serves the call from now on. */
async function take(url: URL, headers: Record<string, string>, serving: ServedCall | undefined, signal: AbortSignal): Promise<Connection> {
  const key = keyOf(url.href, headers);
  const ready = idle.get(key)?.pop();
  if (ready) return Object.assign(ready, { serving });
  const connection: Connection = { key, client: new Client(CLIENT_INFO, { capabilities: RELAYED_CAPABILITIES, versionNegotiation: { mode: "auto" }, inputRequired: { autoFulfill: false } }), serving };
  relaying(connection);
  try {
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: callStreamsOnly(connection), reconnectionScheduler: unrefTimer });
    await connection.client.connect(transport, { signal });
  } catch (error) {
    void close(connection);
    throw error;
  }
  return connection;
}

function giveBack(connection: Connection) {
  connection.serving = undefined;
  const waiting = idle.get(connection.key) ?? [];
  idle.delete(connection.key);
  if (idle.size >= MAX_SERVERS) {
    const [oldestKey, oldest] = idle.entries().next().value!;
    idle.delete(oldestKey);
    for (const connection of oldest) void close(connection);
  }
  idle.set(connection.key, waiting);
  if (waiting.length >= MAX_IDLE_PER_SERVER) void close(connection);
  else waiting.push(connection);
}

/**
 * Runs work on a connection of its own, given back when the work succeeds (or the call pauses for its agent's
 * client); a failure closes it, so the next call connects afresh.
 */
async function withConnection<T>(url: URL, headers: Record<string, string>, serving: ServedCall | undefined, signal: AbortSignal, work: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await take(url, headers, serving, signal);
  const broken = new Promise<never>((_, fail) => (connection.broke = fail));
  try {
    const value = await Promise.race([work(connection), broken]);
    giveBack(connection);
    return value;
  } catch (error) {
    if (error instanceof InputRequired) giveBack(connection);
    else void close(connection);
    throw error;
  }
}

/** Closes every idle connection and lets go of every held call (tests, shutdown). */
export async function closeMcpConnections() {
  releaseHeldCalls();
  const open = [...idle.values()].flat();
  idle.clear();
  await Promise.all(open.map(close));
}

const reasonOf = (error: unknown) => {
  if (error instanceof RelayRefusal) return error.message.replace(/\.$/, "");
  const cause = (error as { cause?: unknown })?.cause;
  const tooLarge = error instanceof AnswerTooLarge ? error : cause instanceof AnswerTooLarge ? cause : undefined;
  if (tooLarge) return tooLarge.message;
  if (error instanceof ProtocolError) return `it answered with the MCP error ${error.code}: ${error.message}`;
  const message = cause instanceof Error && cause.message ? cause.message : error instanceof Error ? error.message : "";
  return message ? `it could not be reached or did not speak MCP (${message})` : "it could not be reached";
};

/** `where`: the server as a message names it ("at https://host", "of the group \"files\" (stdio)"). */
export type Exchange = { where: string; secrets: string[] };

export const failed = ({ where, secrets }: Exchange, reason: string, details: Record<string, unknown> = {}) =>
  executorError("executor_failed", `The tool's MCP server ${where} failed: ${scrubText(reason, secrets)}.`, { recoverable: false, ...details });

/**
 * The server's MCP error that the agent's client gets as it came, its code and data (scrubbed), not as a tool's
 * failure: -32021, a client capability the request did not declare (on 2026-07-28, the agent's client declares its
 * own for each request, and toolgate declares no more: declaringFor in mcp.ts).
 */
export type UpstreamMcpError = { code: number; data?: unknown };

const PASSED_ON = new Set<number>([ProtocolErrorCode.MissingRequiredClientCapability]);

const passedOn = (error: unknown, secrets: string[]): { mcpError: UpstreamMcpError } | undefined =>
  error instanceof ProtocolError && PASSED_ON.has(error.code)
    ? { mcpError: { code: error.code, ...(error.data === undefined ? {} : { data: scrubSecrets(error.data, secrets) }) } }
    : undefined;

/** A connection for one piece of work, given back (or closed) when it ends. */
export type Connected = <T>(serving: ServedCall | undefined, signal: AbortSignal, work: (connection: Connection) => Promise<T>) => Promise<T>;

/**
 * A server reached otherwise than over Streamable HTTP (a stdio server's process, executor/stdio.ts): named for messages,
 * and opened with the executor's secrets, which it hands back to be cut from whatever the server sends.
 */
export type Upstream = { where: string; toolPrefix?: string; open(source: SecretSource): Promise<{ secrets: string[]; withConnection: Connected }> };

async function overHttp(executor: McpExecutor, source: SecretSource) {
  const url = new URL(executor.url);
  const { headers, secrets } = await resolveHeaders(executor.headers, source, url.origin);
  const connected: Connected = (serving, signal, work) => withConnection(url, headers, serving, signal, work);
  return { where: `at ${url.origin}`, secrets, withConnection: connected };
}

/**
 * Runs one exchange with the upstream on a connection of its own, within the deadline: past it the request is aborted
 * (which cancels it upstream) and the answer is 504 tool_timeout. The deadline counts from the call's admission
 * (its scope's `admitted`).
 */
export async function exchange<T>(
  executor: McpExecutor | Upstream,
  source: SecretSource,
  tool: string,
  timeoutMs: number,
  scopeOf: (secrets: string[]) => ServedCall | undefined,
  work: (connection: Connection, signal: AbortSignal) => Promise<T>,
) {
  const { where, secrets, withConnection: connected } = "open" in executor ? { where: executor.where, ...(await executor.open(source)) } : await overHttp(executor, source);
  const context: Exchange = { where, secrets };
  const scope = scopeOf(secrets);
  const admitted = scope?.admitted;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const deadline = new Promise<never>((_, fail) => {
    const start = () => {
      if (ended) return;
      timer = setTimeout(() => {
        abort.abort();
        fail(timedOut(tool, timeoutMs));
      }, timeoutMs);
    };
    if (admitted) admitted.then(start, () => {});
    else start();
  });
  try {
    const value = await Promise.race([connected(scope, abort.signal, (connection) => work(connection, abort.signal)), deadline]);
    return { value, context };
  } catch (error) {
    if (error instanceof ToolgateError || error instanceof InputRequired) throw error;
    throw failed(context, reasonOf(error), passedOn(error, secrets));
  } finally {
    ended = true;
    clearTimeout(timer);
  }
}

export const requestOptions = (signal: AbortSignal, timeoutMs: number) => ({ signal, timeout: timeoutMs + 1_000 });

