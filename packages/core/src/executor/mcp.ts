// The MCP executor: reached only through `await import("./mcp")`, so functions that never call an MCP server never load the SDK.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { scrubSecrets, scrubText } from "../call/redact";
import { ToolgateError } from "../error";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { executorError } from "./errors";
import { MAX_RESPONSE_BYTES } from "./http";
import { McpTool, upstreamName } from "./mcp-tools";
import { pooledFetch } from "./pooled-fetch";
import { cannotRelay, RelayRefusal } from "./relay";
import type { CallPeople, RelayedRequest } from "./relay";
import { resolveHeaders } from "./secrets";
import type { SecretSource } from "./secrets";
import { timedOut } from "./timeout";
import type { McpExecutor, ToolResult } from "./schema";

export type McpCall = { tool: string; arguments: Record<string, unknown> };

/** Pages of tools/list followed before an import gives up: a server listing the same cursor forever is not followed forever. */
const MAX_LIST_PAGES = 100;
const MAX_CONNECTIONS = 64;
const CLIENT_INFO = { name: "toolgate", version: "1.0.0" };
/** What toolgate can carry to an agent's client; whether this call's client takes it is decided when a request comes. */
const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} };

type RelayScope = CallPeople & { secrets: string[] };

/**
 * The call an upstream's request or log message belongs to. A connection serves many calls at once; what a server
 * sends about a call arrives on that call's own response stream, read within the call, where its scope is current.
 * What a server sends on its connection's own stream relates to no call and reaches no agent (a question sent there
 * is refused): it could be any agent's whose call shares the connection.
 */
const relays = new AsyncLocalStorage<RelayScope>();

/**
 * A request the upstream puts to the client, carried to the agent's (its params and the answer scrubbed of the
 * executor's secrets). A question in a form the agent's client cannot take goes to the operators (first, when the
 * role says so); a question for a secret (URL mode) only ever to the agent's client.
 */
async function relayed(scope: RelayScope | undefined, method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) {
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

function relaying(client: Client) {
  client.setRequestHandler("elicitation/create", (request, ctx) => relayed(relays.getStore(), "elicitation/create", request.params, ctx.mcpReq.signal) as never);
  client.setRequestHandler("sampling/createMessage", (request, ctx) => relayed(relays.getStore(), "sampling/createMessage", request.params, ctx.mcpReq.signal) as never);
  client.setNotificationHandler("notifications/message", async (notification) => {
    const scope = relays.getStore();
    await scope?.relay?.log(scrubSecrets(notification.params, scope.secrets));
  });
  return client;
}

/** One connected client per URL and headers (secret values included) in this process, reused by every call; dropped on failure. */
const connections = new Map<string, Promise<Client>>();

const keyOf = (url: string, headers: Record<string, string>) =>
  createHash("sha256").update(JSON.stringify([url, Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))])).digest("base64url");

function drop(key: string, connecting: Promise<Client>) {
  if (connections.get(key) === connecting) connections.delete(key);
  connecting.then((client) => client.close()).catch(() => {});
}

function connection(url: URL, headers: Record<string, string>, signal: AbortSignal) {
  const key = keyOf(url.href, headers);
  const cached = connections.get(key);
  if (cached) return { key, connecting: cached };
  if (connections.size >= MAX_CONNECTIONS) {
    const [oldestKey, oldest] = connections.entries().next().value!;
    drop(oldestKey, oldest);
  }
  const client = relaying(new Client(CLIENT_INFO, { capabilities: RELAYED_CAPABILITIES }));
  // Connected outside any call's scope: what the server sends on its own stream belongs to no call.
  const connecting = relays.exit(() => client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: pooledFetch }), { signal })).then(() => client);
  connections.set(key, connecting);
  return { key, connecting };
}

/** Closes every cached connection (tests, shutdown). */
export async function closeMcpConnections() {
  const open = [...connections.entries()];
  connections.clear();
  await Promise.all(open.map(([, connecting]) => connecting.then((client) => client.close()).catch(() => {})));
}

const reasonOf = (error: unknown) => {
  if (error instanceof ProtocolError) return `it answered with the MCP error ${error.code}: ${error.message}`;
  const cause = (error as { cause?: unknown })?.cause;
  const message = cause instanceof Error && cause.message ? cause.message : error instanceof Error ? error.message : "";
  return message ? `it could not be reached or did not speak MCP (${message})` : "it could not be reached";
};

type Exchange = { url: URL; tool: string; timeoutMs: number; secrets: string[] };

const failed = ({ url, secrets }: Exchange, reason: string) =>
  executorError("executor_failed", `The tool's MCP server at ${url.origin} failed: ${scrubText(reason, secrets)}.`, { recoverable: false });

/**
 * Runs one exchange with the upstream on the cached connection, within the deadline: past it the request is aborted
 * (which cancels it upstream) and the answer is 504 tool_timeout. Any failure drops the connection, so the next call connects afresh.
 */
async function exchange<T>(
  executor: McpExecutor,
  source: SecretSource,
  tool: string,
  timeoutMs: number,
  work: (client: Client, signal: AbortSignal, secrets: string[]) => Promise<T>,
) {
  const url = new URL(executor.url);
  const { headers, secrets } = await resolveHeaders(executor.headers, source, url.origin);
  const context: Exchange = { url, tool, timeoutMs, secrets };
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      abort.abort();
      fail(timedOut(tool, timeoutMs));
    }, timeoutMs);
  });
  const { key, connecting } = connection(url, headers, abort.signal);
  try {
    const value = await Promise.race([connecting.then((client) => work(client, abort.signal, secrets)), deadline]);
    return { value, context };
  } catch (error) {
    drop(key, connecting);
    if (error instanceof ToolgateError) throw error;
    throw failed(context, reasonOf(error));
  } finally {
    clearTimeout(timer);
  }
}

const requestOptions = (signal: AbortSignal, timeoutMs: number) => ({ signal, timeout: timeoutMs + 1_000 });

/** Every tool the server lists, following tools/list page by page. */
export async function listMcpTools(executor: McpExecutor, source: SecretSource, timeoutMs: number): Promise<McpTool[]> {
  const { value, context } = await exchange(executor, source, "tools/list", timeoutMs, async (client, signal) => {
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
 * The server's answer whole (the secrets of the executor's headers scrubbed from it, as from any answer), and its text:
 * its structuredContent as JSON when it is not an error, else its blocks joined.
 */
function toolResult(answer: CallToolResult, context: Exchange): ToolResult {
  if (nestsDeeperThan(answer)) throw failed(context, `its result nests more than ${MAX_JSON_DEPTH} levels deep`);
  const whole = scrubSecrets(answer, context.secrets);
  if (Buffer.byteLength(JSON.stringify(whole), "utf8") > MAX_RESPONSE_BYTES) throw failed(context, `its result was larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
  const structured = whole.isError ? undefined : whole.structuredContent;
  const content = structured !== undefined ? JSON.stringify(structured) : joinedContent(whole);
  return { content, type: whole.isError ? "error" : structured !== undefined ? "json" : "text", mcpResult: whole };
}

/**
 * Forwards one call to the MCP server under the tool's upstream name (toolgate's without the prefix). What the server
 * sends during the call reaches people: progress when the agent asked for it, log messages, questions and sampling
 * requests to the agent's client (its relay), questions it cannot take to the operators.
 */
export async function runMcpExecutor(executor: McpExecutor, call: McpCall, source: SecretSource, timeoutMs: number, people: CallPeople = {}): Promise<ToolResult> {
  const { relay } = people;
  const { value, context } = await exchange(executor, source, call.tool, timeoutMs, (client, signal, secrets) => {
    const onprogress = relay?.wantsProgress ? (progress: { progress: number; total?: number; message?: string }) => void relay.progress(progress) : undefined;
    const params = { name: upstreamName(executor, call.tool), arguments: call.arguments };
    return relays.run({ ...people, secrets }, () => client.callTool(params, { ...requestOptions(signal, timeoutMs), ...(onprogress ? { onprogress } : {}) }));
  });
  return toolResult(value as CallToolResult, context);
}
