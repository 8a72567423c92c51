// The MCP executor's connections: reached only through `await import("./mcp")`, like the executor itself.
import { createHash } from "node:crypto";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { scrubSecrets, scrubText } from "../call/redact";
import { ToolgateError } from "../error";
import { executorError } from "./errors";
import { MAX_RESPONSE_BYTES } from "./http";
import { AnswerTooLarge, pooledFetch } from "./pooled-fetch";
import { cannotRelay, InputRequired, RelayRefusal } from "./relay";
import type { CallPeople, RelayedRequest } from "./relay";
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
 * A call as its connection serves it: where what the server sends goes, the secrets to cut from it, the call token,
 * and its admission, which every request waits for (see RunOptions).
 */
export type ServedCall = CallPeople & { secrets: string[]; callToken?: Record<string, string>; admitted?: Promise<void> };

/**
 * A connected client and the call it serves now. A connection serves one call at a time, and reads no stream but its
 * calls' own (see callStreamsOnly): whatever its server sends belongs to the call it serves, and reaches that call's
 * people; between calls, nothing does (a question is refused, a log message dropped).
 */
export type Connection = { key: string; client: Client; serving?: ServedCall };

/**
 * A request the upstream puts to the client, carried to the agent's (its params and the answer scrubbed of the
 * executor's secrets). A question in a form the agent's client cannot take goes to the operators (first, when the
 * role says so); a question for a secret (URL mode) only ever to the agent's client.
 */
export async function relayed(scope: ServedCall | undefined, method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) {
  if (!scope) throw cannotRelay(method);
  const asked = scrubSecrets(params, scope.secrets);
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
 * The transport's fetch for one connection: each request carries the token of the call the connection serves. A GET
 * that would open the connection's own stream (what a server sends there relates to no call: it could be any
 * agent's) is answered 405 here, which the transport takes as "no such stream"; a GET resuming a call's response
 * stream goes through.
 */
const callStreamsOnly =
  (connection: Connection) =>
  async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.method === "GET" && !headers.has("last-event-id")) return new Response(null, { status: 405 });
    for (const [name, value] of Object.entries(connection.serving?.callToken ?? {})) headers.set(name, value);
    await connection.serving?.admitted;
    return pooledFetch(input, { ...init, headers }, { maxBodyBytes: MAX_RESPONSE_BYTES });
  };

/** Idle connections per URL and headers (secret values included), the most recently used server last; a call takes one or connects anew. */
const idle = new Map<string, Connection[]>();

const keyOf = (url: string, headers: Record<string, string>) =>
  createHash("sha256").update(JSON.stringify([url, Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))])).digest("base64url");

const close = (connection: Connection) => void connection.client.close().catch(() => {});

/** An idle connection to the server, or a new one; either serves the call from now on. */
async function take(url: URL, headers: Record<string, string>, serving: ServedCall | undefined, signal: AbortSignal): Promise<Connection> {
  const key = keyOf(url.href, headers);
  const ready = idle.get(key)?.pop();
  if (ready) return Object.assign(ready, { serving });
  const connection: Connection = { key, client: new Client(CLIENT_INFO, { capabilities: RELAYED_CAPABILITIES, versionNegotiation: { mode: "auto" }, inputRequired: { autoFulfill: false } }), serving };
  relaying(connection);
  try {
    await connection.client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: callStreamsOnly(connection) }), { signal });
  } catch (error) {
    close(connection);
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
    oldest.forEach(close);
  }
  idle.set(connection.key, waiting);
  if (waiting.length >= MAX_IDLE_PER_SERVER) close(connection);
  else waiting.push(connection);
}

/**
 * Runs work on a connection of its own, given back when the work succeeds (or the call pauses for its agent's
 * client); a failure closes it, so the next call connects afresh.
 */
async function withConnection<T>(url: URL, headers: Record<string, string>, serving: ServedCall | undefined, signal: AbortSignal, work: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await take(url, headers, serving, signal);
  try {
    const value = await work(connection);
    giveBack(connection);
    return value;
  } catch (error) {
    if (error instanceof InputRequired) giveBack(connection);
    else close(connection);
    throw error;
  }
}

/** Closes every idle connection (tests, shutdown). */
export async function closeMcpConnections() {
  const open = [...idle.values()].flat();
  idle.clear();
  await Promise.all(open.map((connection) => connection.client.close().catch(() => {})));
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

export type Exchange = { url: URL; tool: string; timeoutMs: number; secrets: string[] };

export const failed = ({ url, secrets }: Exchange, reason: string) =>
  executorError("executor_failed", `The tool's MCP server at ${url.origin} failed: ${scrubText(reason, secrets)}.`, { recoverable: false });

/**
 * Runs one exchange with the upstream on a connection of its own, within the deadline: past it the request is aborted
 * (which cancels it upstream) and the answer is 504 tool_timeout. The deadline counts from the call's admission
 * (its scope's `admitted`).
 */
export async function exchange<T>(
  executor: McpExecutor,
  source: SecretSource,
  tool: string,
  timeoutMs: number,
  scopeOf: (secrets: string[]) => ServedCall | undefined,
  work: (connection: Connection, signal: AbortSignal) => Promise<T>,
) {
  const url = new URL(executor.url);
  const { headers, secrets } = await resolveHeaders(executor.headers, source, url.origin);
  const context: Exchange = { url, tool, timeoutMs, secrets };
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
    const value = await Promise.race([withConnection(url, headers, scope, abort.signal, (connection) => work(connection, abort.signal)), deadline]);
    return { value, context };
  } catch (error) {
    if (error instanceof ToolgateError || error instanceof InputRequired) throw error;
    throw failed(context, reasonOf(error));
  } finally {
    ended = true;
    clearTimeout(timer);
  }
}

export const requestOptions = (signal: AbortSignal, timeoutMs: number) => ({ signal, timeout: timeoutMs + 1_000 });

