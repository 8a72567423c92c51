// The MCP executor: reached only through `await import("./mcp")`, so functions that never call an MCP server never load the SDK.
import { createHash } from "node:crypto";
import { Client, isInputRequiredResult, LOG_LEVEL_META_KEY, ProtocolError, SERVER_INFO_META_KEY, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, InputRequiredResult } from "@modelcontextprotocol/client";
import { scrubSecrets, scrubText } from "../call/redact";
import { ToolgateError } from "../error";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { executorError } from "./errors";
import { MAX_RESPONSE_BYTES } from "./http";
import { McpTool, upstreamName } from "./mcp-tools";
import { AnswerTooLarge, pooledFetch } from "./pooled-fetch";
import { cannotRelay, InputRequired, isRelayed, RelayRefusal } from "./relay";
import type { CallPeople, InputAnswers, InputRequests, RelayedRequest } from "./relay";
import { resolveHeaders } from "./secrets";
import type { SecretSource } from "./secrets";
import { timedOut } from "./timeout";
import type { McpExecutor, ToolResult } from "./schema";

export type McpCall = { tool: string; arguments: Record<string, unknown> };

/** Pages of tools/list followed before an import gives up: a server listing the same cursor forever is not followed forever. */
const MAX_LIST_PAGES = 100;
/** Times one call may ask for input before toolgate stops answering: a server asking forever is not answered forever. */
const MAX_INPUT_ROUNDS = 10;
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
type ServedCall = CallPeople & { secrets: string[]; callToken?: Record<string, string>; admitted?: Promise<void> };

/**
 * A connected client and the call it serves now. A connection serves one call at a time, and reads no stream but its
 * calls' own (see callStreamsOnly): whatever its server sends belongs to the call it serves, and reaches that call's
 * people; between calls, nothing does (a question is refused, a log message dropped).
 */
type Connection = { key: string; client: Client; serving?: ServedCall };

/**
 * A request the upstream puts to the client, carried to the agent's (its params and the answer scrubbed of the
 * executor's secrets). A question in a form the agent's client cannot take goes to the operators (first, when the
 * role says so); a question for a secret (URL mode) only ever to the agent's client.
 */
async function relayed(scope: ServedCall | undefined, method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) {
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

type Exchange = { url: URL; tool: string; timeoutMs: number; secrets: string[] };

const failed = ({ url, secrets }: Exchange, reason: string) =>
  executorError("executor_failed", `The tool's MCP server at ${url.origin} failed: ${scrubText(reason, secrets)}.`, { recoverable: false });

/**
 * Runs one exchange with the upstream on a connection of its own, within the deadline: past it the request is aborted
 * (which cancels it upstream) and the answer is 504 tool_timeout. The deadline counts from the call's admission
 * (its scope's `admitted`).
 */
async function exchange<T>(
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

const requestOptions = (signal: AbortSignal, timeoutMs: number) => ({ signal, timeout: timeoutMs + 1_000 });

/** Every tool the server lists, following tools/list page by page. */
export async function listMcpTools(executor: McpExecutor, source: SecretSource, timeoutMs: number): Promise<McpTool[]> {
  const { value, context } = await exchange(executor, source, "tools/list", timeoutMs, () => undefined, async ({ client }, signal) => {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { ...requestOptions(signal, timeoutMs), cacheMode: "bypass" });
      tools.push(...listed.tools);
      if (!listed.nextCursor || listed.nextCursor === cursor) return tools;
      cursor = listed.nextCursor;
    }
    throw new Error(`tools/list was still paging after ${MAX_LIST_PAGES} pages`);
  });
  const parsed = McpTool.array().safeParse(value);
  if (!parsed.success) throw failed(context, "its tools/list answer is not a list of tools with a name and an inputSchema");
  return parsed.data;
}

const MEDIA_BLOCK = /^(image|audio)$/;

/** The call's content blocks as one text: text as it is, embedded text resources by their text, anything else named. */
function joinedContent(result: CallToolResult) {
  return result.content
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "resource") return "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
      if (block.type === "resource_link") return `[resource ${block.uri}]`;
      return MEDIA_BLOCK.test(block.type) ? `[${block.type} ${"mimeType" in block ? block.mimeType : ""}]`.replace(" ]", "]") : `[${block.type}]`;
    })
    .join("\n");
}

/**
 * The answer without what names the server that gave it (a 2026-07-28 server stamps its serverInfo into every result's
 * _meta): to the agent's client toolgate is the server, and stamps its own.
 */
function withoutServerInfo(answer: CallToolResult): CallToolResult {
  if (!answer._meta || !(SERVER_INFO_META_KEY in answer._meta)) return answer;
  const { [SERVER_INFO_META_KEY]: _server, ...meta } = answer._meta;
  const { _meta: _stamped, ...rest } = answer;
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
}

/**
 * The server's answer whole (the secrets of the executor's headers scrubbed from it, as from any answer), and its text:
 * its structuredContent as JSON when it is not an error, else its blocks joined.
 */
function toolResult(answer: CallToolResult, context: Exchange): ToolResult {
  if (nestsDeeperThan(answer)) throw failed(context, `its result nests more than ${MAX_JSON_DEPTH} levels deep`);
  const whole = scrubSecrets(withoutServerInfo(answer), context.secrets);
  const structured = whole.isError ? undefined : whole.structuredContent;
  const content = structured !== undefined ? JSON.stringify(structured) : joinedContent(whole);
  return { content, type: whole.isError ? "error" : structured !== undefined ? "json" : "text", mcpResult: whole };
}

/**
 * What a 2026-07-28 server's input requests get. The agent's client answers them itself when it can: the call pauses
 * (InputRequired) until the client sends it again with the answers. Otherwise each goes where a request during the call
 * goes (the agent's 2025-era client on its response, a form to the operators) and the call goes on with the answers.
 */
async function answersTo(asked: InputRequiredResult, served: ServedCall, signal: AbortSignal): Promise<InputAnswers> {
  const requests = scrubSecrets(asked.inputRequests ?? {}, served.secrets) as InputRequests;
  if (!served.operatorsFirst && served.relay?.takesInput(requests)) throw new InputRequired(requests, asked.requestState);
  const inputResponses: Record<string, unknown> = {};
  for (const [key, { method, params }] of Object.entries(asked.inputRequests ?? {})) {
    if (!isRelayed(method)) throw new RelayRefusal(`it asked for ${method}, which toolgate does not carry`);
    inputResponses[key] = await relayed(served, method, (params ?? {}) as Record<string, unknown>, signal);
  }
  return { inputResponses, ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }) };
}

/** Who a forwarded call is for (people), the token its requests carry, a paused call's answers, and its admission. */
export type McpCallOptions = { people?: CallPeople; callToken?: Record<string, string>; answers?: InputAnswers; admitted?: Promise<void> };

/**
 * Forwards one call to the MCP server under the tool's upstream name (toolgate's without the prefix). What the server
 * sends during the call reaches people: progress when the agent asked for it, log messages, questions and sampling
 * requests to the agent's client (its relay), questions it cannot take to the operators. Each of its requests
 * carries the call token, and waits for the call's admission (see RunOptions). `answers`: a paused call going on with
 * its agent's client's answers.
 */
export async function runMcpExecutor(
  executor: McpExecutor,
  call: McpCall,
  source: SecretSource,
  timeoutMs: number,
  { people = {}, callToken = {}, answers, admitted }: McpCallOptions = {},
): Promise<ToolResult> {
  const { relay } = people;
  const onprogress = relay?.wantsProgress ? (progress: { progress: number; total?: number; message?: string }) => void relay.progress(progress) : undefined;
  const params = {
    name: upstreamName(executor, call.tool),
    arguments: call.arguments,
    ...(relay?.logLevel ? { _meta: { [LOG_LEVEL_META_KEY]: relay.logLevel } } : {}),
  };
  const { value, context } = await exchange(
    executor,
    source,
    call.tool,
    timeoutMs,
    (secrets) => ({ ...people, secrets, callToken, ...(admitted ? { admitted } : {}) }),
    async ({ client, serving }, signal) => {
      let given = answers;
      for (let round = 0; ; round++) {
        const answer = await client.callTool({ ...params, ...given }, { ...requestOptions(signal, timeoutMs), allowInputRequired: true, ...(onprogress ? { onprogress } : {}) });
        if (!isInputRequiredResult(answer)) return answer;
        if (round === MAX_INPUT_ROUNDS) throw new RelayRefusal(`it asked for input ${MAX_INPUT_ROUNDS} times in one call`);
        given = await answersTo(answer, serving!, signal);
      }
    },
  );
  return toolResult(value as CallToolResult, context);
}
