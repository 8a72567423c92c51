// What an MCP server offers besides tools: reached only through `loadMcpOffers()`, like the executor itself.
import { isInputRequiredResult } from "@modelcontextprotocol/client";
import type { Client, CompleteRequest, GetPromptResult, InputRequiredResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { scrubSecrets } from "../call/redact";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { everyPage, withoutServerInfo } from "./mcp";
import { exchange, failed, requestOptions } from "./mcp-connection";
import type { Exchange, Upstream } from "./mcp-connection";
import { upstreamName } from "./mcp-tools";
import type { CallPeople, InputAnswers, InputRequests, ServedCall } from "./relay";
import type { SecretSource } from "./secrets";
import type { McpExecutor, OfferAnswer, ToolResult } from "./schema";

/** What a server lists besides tools, as it listed them (toolgate's offer/schema reads them). */
export type ListedByServer = { resources: unknown[]; resourceTemplates: unknown[]; prompts: unknown[] };

/** Every resource, template and prompt the server lists (each page), or none of a kind its capabilities do not declare. */
export async function listMcpOffers(executor: McpExecutor | Upstream, source: SecretSource, timeoutMs: number): Promise<ListedByServer> {
  const { value } = await exchange(executor, source, "resources/list", timeoutMs, () => undefined, async ({ client }, signal) => {
    const capabilities = client.getServerCapabilities() ?? {};
    const options = { ...requestOptions(signal, timeoutMs), cacheMode: "bypass" as const };
    const resources = capabilities.resources ? await everyPage("resources/list", (params) => client.listResources(params, options), (page) => page.resources) : [];
    const resourceTemplates = capabilities.resources
      ? await everyPage("resources/templates/list", (params) => client.listResourceTemplates(params, options), (page) => page.resourceTemplates)
      : [];
    const prompts = capabilities.prompts ? await everyPage("prompts/list", (params) => client.listPrompts(params, options), (page) => page.prompts) : [];
    return { resources, resourceTemplates, prompts };
  });
  return value;
}

/** One use of an offer as its server knows it: the server's own URI, or the prompt's own name with its arguments. */
export type UpstreamOffer = { kind: "resource"; uri: string } | { kind: "prompt"; name: string; arguments: Record<string, string> };

/** A resource's contents or a prompt's messages as one text, for the call record: text as it is, anything else named. */
function textOf(answer: OfferAnswer): string {
  if (answer.kind === "resource")
    return answer.result.contents.map((content) => ("text" in content ? content.text : `[blob ${content.mimeType ?? ""} ${content.uri}]`.replace("  ", " "))).join("\n");
  return answer.result.messages
    .map(({ role, content }) => `${role}: ${content.type === "text" ? content.text : content.type === "resource" ? `[resource ${content.resource.uri}]` : `[${content.type}]`}`)
    .join("\n");
}

/**
 * The answer as the agent gets it: without what names the server (withoutServerInfo) or says how long it may be cached
 * (its cacheScope and ttlMs: toolgate's own hints are the agent's), since to the agent's client toolgate is the server.
 */
function asToolgates<T extends { _meta?: Record<string, unknown> | undefined }>(answer: T): T {
  const { cacheScope: _scope, ttlMs: _ttl, resultType: _type, ...rest } = answer as T & { cacheScope?: unknown; ttlMs?: unknown; resultType?: unknown };
  return withoutServerInfo(rest as T);
}

function offerResult(answer: OfferAnswer, context: Exchange): ToolResult {
  if (nestsDeeperThan(answer.result)) throw failed(context, `its answer nests more than ${MAX_JSON_DEPTH} levels deep`);
  const whole = { ...answer, result: scrubSecrets(asToolgates(answer.result), context.secrets) } as OfferAnswer;
  return { content: textOf(whole), type: "text", mcpAnswer: whole };
}

/** A read or get the server answered input_required: what it asks the agent's client for first, and its own request state. */
type AskedFirst = { kind: "input_required"; asked: InputRequiredResult };

/** What a read or get sends again: its client's answers to what the server asked, and the server's own request state. */
const retryOf = (answers: InputAnswers | undefined) =>
  answers ? { inputResponses: answers.inputResponses, ...(answers.requestState === undefined ? {} : { requestState: answers.requestState }) } : {};

async function ask(client: Client, offer: UpstreamOffer, answers: InputAnswers | undefined, signal: AbortSignal, timeoutMs: number): Promise<OfferAnswer | AskedFirst> {
  const options = { ...requestOptions(signal, timeoutMs), allowInputRequired: true as const };
  const retry = retryOf(answers);
  const answer =
    offer.kind === "resource"
      ? await client.readResource({ uri: offer.uri, ...retry }, options)
      : await client.getPrompt({ name: offer.name, arguments: offer.arguments, ...retry }, options);
  if (isInputRequiredResult(answer)) return { kind: "input_required", asked: answer };
  return offer.kind === "resource" ? { kind: "resource", result: answer as ReadResourceResult } : { kind: "prompt", result: answer as GetPromptResult };
}

const methodsOf = (requests: InputRequests) => [...new Set(Object.values(requests).map(({ method }) => method))].join(", ") || "none named";

/** Why the server's questions cannot reach the agent's client through its own round trip, or undefined when they can. */
function unaskable({ relay, operatorsFirst }: CallPeople, requests: InputRequests): string | undefined {
  if (operatorsFirst) return "the agent's role sends every question to the operators, who cannot answer a read or a get (it is answered at once)";
  if (relay?.takesInput(requests)) return undefined;
  return "toolgate carries that round trip only to an MCP 2026-07-28 client that declares every kind of request asked (this request came over REST, from a 2025-era client, or from a client that does not declare them)";
}

/**
 * A read or get whose server asks the agent's client for input first (MCP 2026-07-28's input_required): handed on for
 * the client's own round trip when it takes every request (the record says so, and the client reads or gets again
 * with its answers, a use of its own); otherwise refused, nothing asked.
 */
function askedFirst(context: Exchange, offer: UpstreamOffer, { inputRequests = {}, requestState }: InputRequiredResult, people: CallPeople): ToolResult {
  if (nestsDeeperThan(inputRequests)) throw failed(context, `its input requests nest more than ${MAX_JSON_DEPTH} levels deep`);
  const requests = scrubSecrets(inputRequests, context.secrets) as InputRequests;
  const method = offer.kind === "resource" ? "resources/read" : "prompts/get";
  const refusal = unaskable(people, requests);
  if (refusal) throw failed(context, `it asked the agent's client for input (${methodsOf(requests)}) before answering this ${method}, and ${refusal}, so nothing was asked`);
  const content = `Before answering, the server asked the agent's client for input (${Object.entries(requests).map(([key, { method: asked }]) => `${key}: ${asked}`).join(", ")}); the client answers it with its next ${method}.`;
  return { content, type: "text", asksForInput: { inputRequests: requests, ...(requestState === undefined ? {} : { requestState }) } };
}

/**
 * `people`: who the read or get is for (whether the agent's client answers the server's input requests itself).
 * `answers`: the client's answers to what the server asked, sent with the read or get again.
 */
export type McpOfferOptions = { callToken?: ServedCall["callToken"]; admitted?: Promise<void>; people?: CallPeople; answers?: InputAnswers };

/**
 * Reads a resource or gets a prompt from the server, live, on a connection of the pool, within the deadline: past it
 * 504 tool_timeout; an answer over 5 MiB, one the SDK cannot parse, an MCP error or an unreachable server, 502
 * executor_failed. The answer is kept whole (scrubbed of the executor's secrets) for the agent; one asking the
 * agent's client for input first is handed on, or refused (askedFirst).
 */
export async function runMcpOffer(
  executor: McpExecutor | Upstream,
  label: string,
  offer: UpstreamOffer,
  source: SecretSource,
  timeoutMs: number,
  { callToken, admitted, people = {}, answers }: McpOfferOptions = {},
): Promise<ToolResult> {
  const { value, context } = await exchange(
    executor,
    source,
    label,
    timeoutMs,
    (secrets) => ({ secrets, callToken, ...(admitted ? { admitted } : {}) }),
    ({ client }, signal) => ask(client, offer, answers, signal, timeoutMs),
  );
  if (value.kind === "input_required") return askedFirst(context, offer, value.asked, people);
  return offerResult(value, context);
}

/** The prompt's name as its server knows it: toolgate's without the group's prefix. */
export const upstreamPrompt = (executor: Pick<McpExecutor, "toolPrefix">, name: string) => upstreamName(executor, name);

export type Completion = { values: string[]; total?: number; hasMore?: boolean };

/** A completion of a prompt's or a template's argument, asked of the server that offers it (the ref as the server knows it). */
export async function completeMcp(executor: McpExecutor | Upstream, params: CompleteRequest["params"], source: SecretSource, timeoutMs: number): Promise<Completion> {
  const { value, context } = await exchange(executor, source, "completion/complete", timeoutMs, () => undefined, ({ client }, signal) => client.complete(params, requestOptions(signal, timeoutMs)));
  const scrubbed = scrubSecrets(value.completion, context.secrets);
  return { values: scrubbed.values.slice(0, 100), ...(scrubbed.total === undefined ? {} : { total: scrubbed.total }), ...(scrubbed.hasMore === undefined ? {} : { hasMore: scrubbed.hasMore }) };
}
