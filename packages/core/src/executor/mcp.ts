// The MCP executor: reached only through `await import("./mcp")`, so functions that never call an MCP server never load the SDK.
import { CLIENT_CAPABILITIES_META_KEY, isInputRequiredResult, LOG_LEVEL_META_KEY, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult, InputRequiredResult, ListToolsResult } from "@modelcontextprotocol/client";
import { scrubSecrets } from "../call/redact";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { HeldCall, heldElsewhere, takeHeld } from "./held";
import type { HeldPause } from "./held";
import { exchange, failed, relayed, requestOptions } from "./mcp-connection";
import type { Exchange, Upstream } from "./mcp-connection";
import { McpTool, upstreamName } from "./mcp-tools";
import { InputRequired, isRelayed, RelayRefusal } from "./relay";
import type { CallPeople, ClientCapabilities, InputAnswers, InputRequests, ServedCall } from "./relay";
import type { SecretSource } from "./secrets";
import type { McpExecutor, ToolResult } from "./schema";

export { closeMcpConnections } from "./mcp-connection";

export type McpCall = { tool: string; arguments: Record<string, unknown> };

/** Pages of a list followed before an import gives up: a server listing the same cursor forever is not followed forever. */
const MAX_LIST_PAGES = 100;
/** Times one call may ask for input before toolgate stops answering: a server asking forever is not answered forever. */
const MAX_INPUT_ROUNDS = 10;

/** Every item of a list the server pages (`list` asks for one page, `items` reads it), up to MAX_LIST_PAGES pages. */
export async function everyPage<P extends { nextCursor?: string | undefined }, T>(method: string, list: (params: { cursor?: string }) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await list(cursor === undefined ? {} : { cursor });
    all.push(...items(listed));
    if (!listed.nextCursor || listed.nextCursor === cursor) return all;
    cursor = listed.nextCursor;
  }
  throw new Error(`${method} was still paging after ${MAX_LIST_PAGES} pages`);
}

/** Every tool the server lists, following tools/list page by page. */
export async function listMcpTools(executor: McpExecutor | Upstream, source: SecretSource, timeoutMs: number): Promise<McpTool[]> {
  const { value, context } = await exchange(executor, source, "tools/list", timeoutMs, () => undefined, ({ client }, signal) =>
    everyPage<ListToolsResult, unknown>("tools/list", (params) => client.listTools(params, { ...requestOptions(signal, timeoutMs), cacheMode: "bypass" }), (page) => page.tools),
  );
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
export function withoutServerInfo<T extends { _meta?: Record<string, unknown> | undefined }>(answer: T): T {
  if (!answer._meta || !(SERVER_INFO_META_KEY in answer._meta)) return answer;
  const { [SERVER_INFO_META_KEY]: _server, ...meta } = answer._meta;
  const { _meta: _stamped, ...rest } = answer;
  return (Object.keys(meta).length ? { ...rest, _meta: meta } : rest) as T;
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

/** A request's params, with its _meta. */
type Params = { _meta?: Record<string, unknown> } & Record<string, unknown>;

/**
 * The call's request as a 2026-07-28 server gets it: declaring, for a call of a 2026-07-28 agent client (whose
 * capabilities ride each of its requests), only what this call carries: what that client declared (a role that sends
 * its questions to the operators, forms alone, which they answer). The server then asks only what can be answered, and
 * refuses (-32021) what needs more. Any other call (REST, a 2025-era client) declares what the connection declared:
 * what toolgate carries to anyone, forms going to the operators.
 */
function declaringFor<P extends Params>(client: Client, params: P, { relay, operatorsFirst }: CallPeople): P {
  if (client.getProtocolEra() !== "modern" || !relay?.declares) return params;
  const declares: ClientCapabilities = operatorsFirst ? { elicitation: { form: {} } } : relay.declares;
  return { ...params, _meta: { ...params._meta, [CLIENT_CAPABILITIES_META_KEY]: declares } };
}

/** Who a forwarded call is for (people), the token its requests carry, a paused call's answers, and its admission. */
export type McpCallOptions = { people?: CallPeople; callToken?: ServedCall["callToken"]; answers?: InputAnswers; admitted?: Promise<void> };

/**
 * Forwards one call to the MCP server under the tool's upstream name (toolgate's without the prefix). What the server
 * sends during the call reaches people: progress when the agent asked for it, log messages, questions and sampling
 * requests to the agent's client (its relay), questions it cannot take to the operators. Each of its requests
 * carries the call token, and waits for the call's admission (see RunOptions). `answers`: a paused call going on with
 * its agent's client's answers: a call held open in this process (a 2025-era server waiting on its request) goes on
 * where it stopped, never sent again.
 */
export async function runMcpExecutor(
  executor: McpExecutor | Upstream,
  call: McpCall,
  source: SecretSource,
  timeoutMs: number,
  { people = {}, callToken, answers, admitted }: McpCallOptions = {},
): Promise<ToolResult> {
  if (answers?.held !== undefined) return goOnHeld(answers.held, answers.inputResponses, call.tool, people, admitted);
  const { relay } = people;
  const held = new HeldCall();
  const onprogress = relay?.wantsProgress ? (progress: { progress: number; total?: number; message?: string }) => void held.served?.relay?.progress(progress) : undefined;
  const params = {
    name: upstreamName(executor, call.tool),
    arguments: call.arguments,
    ...(relay?.logLevel ? { _meta: { [LOG_LEVEL_META_KEY]: relay.logLevel } } : {}),
  };
  const running = exchange(
    executor,
    source,
    call.tool,
    timeoutMs,
    (secrets) => (held.served = { ...people, secrets, callToken, hold: held.ask, ...(admitted ? { admitted } : {}) }),
    async ({ client, serving }, signal) => {
      const options = { ...requestOptions(AbortSignal.any([signal, held.signal]), timeoutMs), allowInputRequired: true as const, ...(onprogress ? { onprogress } : {}) };
      let given = answers;
      for (let round = 0; ; round++) {
        const answer = await client.callTool(declaringFor(client, { ...params, ...given }, people), options);
        if (!isInputRequiredResult(answer)) return answer;
        if (round === MAX_INPUT_ROUNDS) throw new RelayRefusal(`it asked for input ${MAX_INPUT_ROUNDS} times in one call`);
        given = await answersTo(answer, serving!, signal);
      }
    },
  ).then(({ value, context }) => toolResult(value as CallToolResult, context));
  return pausedOrDone(held.until(running));
}

/** The call's result, or, when its server asks what the agent's client answers itself, its pause (the call held open). */
async function pausedOrDone(next: Promise<ToolResult | HeldPause>): Promise<ToolResult> {
  const turn = await next;
  if (!("inputRequests" in turn)) return turn;
  throw new InputRequired(turn.inputRequests, undefined, undefined, { id: turn.id, endedWhileHeld: turn.endedWhileHeld });
}

/**
 * A held call going on with its agent's client's answer, on the request that carried it (whose client hears what the
 * server sends from now on). A call this process does not hold (another instance paused it, toolgate restarted, it
 * ended) is never sent again: it fails, saying so.
 */
async function goOnHeld(id: string, inputResponses: Record<string, unknown>, tool: string, people: CallPeople, admitted: Promise<void> | undefined) {
  await admitted;
  const held = takeHeld(id);
  if (!held) throw heldElsewhere(tool);
  held.servedBy(people);
  held.answer(inputResponses);
  return pausedOrDone(held.until());
}
