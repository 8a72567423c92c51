import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { CompleteRequest, GetPromptResult, InputRequiredResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType, Server, ServerContext } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { View } from "../access/index";
import type { Agent } from "../agent/schema";
import { storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { loadMcpOffers } from "../executor/load-mcp";
import type { InputAnswers } from "../executor/relay";
import { loadStdio } from "../executor/stdio-load";
import { executorTimeoutMs } from "../executor/types";
import { freshView, guardedOffer, isCallerRefusal } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { completionTarget, listedOffers } from "../offer/index";
import type { AgentPrompt, AgentResource, AgentTemplate, OfferCall } from "../offer/index";
import { askClientFirst, offerAnswered } from "./offer-input";
import { foreignRequestState } from "./paused";
import { clientRelay } from "./relay";
import type { McpSettings } from "./schema";
import { pageOf, StaleCursorError } from "./tools";
import type { ListName } from "./tools";

/** Who asks, and where a refusal of the caller itself (a revoked token, a terminated agent) goes: to the edge, as a 401 or 403. */
export type OfferCaller = { deps: GuardDeps; agent: Agent; settings: McpSettings; refuseCaller(error: ToolgateError): never };

/** How long a completion may take: a person is typing. */
const COMPLETION_TIMEOUT_MS = 5_000;

const toolgateCodes = (error: ToolgateError) => {
  const { callId, recoverable, retryAfterSeconds } = error.details as { callId?: string; recoverable?: boolean; retryAfterSeconds?: number };
  return { code: error.code, ...(callId ? { callId } : {}), ...(recoverable === undefined ? {} : { recoverable }), ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
};

/**
 * A refusal as the JSON-RPC error MCP gives a read or a get (neither has an error result): a resource or prompt the
 * agent may not use is an invalid parameter (-32602, what 2026-07-28 answers for a resource not found, and for an unknown
 * tool); any other refusal -32603. toolgate's code, the recorded call and whether to retry are its data, as a tool's refusal's _meta.
 */
export function asProtocolError(caller: Pick<OfferCaller, "refuseCaller">, error: unknown): never {
  if (error instanceof ToolgateError && isCallerRefusal(error)) caller.refuseCaller(error);
  const refused = error instanceof StoreUnavailableError ? storeUnavailable(error) : error;
  if (!(refused instanceof ToolgateError)) throw error;
  const code = refused.code === "tool_not_available" || refused.code === "ambiguous_resource" ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  throw new ProtocolError(code, refused.message, toolgateCodes(refused));
}

async function viewOf(caller: OfferCaller): Promise<View> {
  try {
    return await freshView(caller.deps, caller.agent);
  } catch (error) {
    if (error instanceof ToolgateError && isCallerRefusal(error)) caller.refuseCaller(error);
    throw error instanceof ToolgateError ? new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message) : error;
  }
}

function paged<T>(view: View, items: readonly T[], settings: McpSettings, cursor: string | undefined, list: ListName) {
  try {
    return pageOf(view, items, settings.pageSize, cursor, list);
  } catch (error) {
    throw error instanceof StaleCursorError ? new ProtocolError(ProtocolErrorCode.InvalidParams, error.message) : error;
  }
}

const resourceOf = ({ group: _group, ...resource }: AgentResource): Resource => resource;
const templateOf = ({ group: _group, ...template }: AgentTemplate): ResourceTemplateType => template;
const promptOf = ({ group: _group, ...prompt }: AgentPrompt): Prompt => prompt;

/**
 * The answer a guarded read or get came back with, whole, naming its call record in _meta; or, when its server asks the
 * agent's 2026-07-28 client for input first, input_required with the use sealed in the request state. Sent again with
 * that state and the client's answers, it is guarded again (a use of its own) and the server gets the answers; a
 * state toolgate did not give this agent for this same read or get is refused.
 */
async function used(caller: OfferCaller, server: Server, ctx: ServerContext, offer: OfferCall): Promise<ReadResourceResult | GetPromptResult | InputRequiredResult> {
  const { deps, agent, settings } = caller;
  try {
    const answers = answersOf(caller, ctx, offer);
    const relay = clientRelay({ db: deps.db, agentId: agent.id, server, ctx, streams: settings.streams, client: undefined, logLevel: noLogLevel });
    const { body } = await guardedOffer(deps, agent, offer, { relay, ...(answers ? { answers } : {}) });
    if (body.result.asksForInput) return askClientFirst(deps.seal, agent.id, offer, body.result.asksForInput, body.callId);
    const answer = body.result.mcpAnswer!.result;
    return { ...answer, _meta: { ...answer._meta, callId: body.callId } };
  } catch (error) {
    asProtocolError(caller, error);
  }
}

/** The client's answers a read or get is sent again with, and the server's own state, when its request state is one toolgate gave for it. */
function answersOf({ deps, agent }: OfferCaller, ctx: ServerContext, offer: OfferCall): InputAnswers | undefined {
  const state = ctx.mcpReq.requestState();
  const answered = offerAnswered(deps.seal, state, agent.id, offer);
  if (state !== undefined && !answered) throw foreignRequestState();
  return answered && { inputResponses: ctx.mcpReq.inputResponses ?? {}, ...answered };
}

/** A read or get relays no log message: its relay only says whether the client takes the server's input requests. */
const noLogLevel = async () => undefined;

const ReadParams = z.looseObject({ uri: z.string().min(1).max(4096) });
const GetParams = z.looseObject({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.string()).optional() });

/** A completion for an argument of a prompt or template the agent may use, asked of the group offering it; not recorded. */
async function complete(caller: OfferCaller, params: CompleteRequest["params"]) {
  const { access } = await viewOf(caller);
  const ref = params.ref.type === "ref/prompt" ? { type: "ref/prompt" as const, name: params.ref.name } : { type: "ref/resource" as const, uri: params.ref.uri };
  const target = completionTarget(access, ref);
  if (!target.group) asProtocolError(caller, target.error);
  const executor = target.group.executor;
  if (executor?.type !== "mcp" && executor?.type !== "stdio") return { completion: { values: [] } };
  const server = executor.type === "mcp" ? executor : (await loadStdio()).stdioUpstream(target.group.id, executor);
  const upstreamRef =
    params.ref.type === "ref/prompt" ? { type: "ref/prompt" as const, name: (await loadMcpOffers()).upstreamPrompt(executor, params.ref.name) } : { type: "ref/resource" as const, uri: target.upstreamUri! };
  const timeoutMs = Math.min(executorTimeoutMs(executor) ?? COMPLETION_TIMEOUT_MS, COMPLETION_TIMEOUT_MS);
  try {
    const completion = await (await loadMcpOffers()).completeMcp(server, { ...params, ref: upstreamRef }, caller.deps.secrets, timeoutMs);
    return { completion };
  } catch (error) {
    asProtocolError(caller, error);
  }
}

/**
 * resources/list, resources/templates/list, prompts/list (from the catalog: what the agent's groups' servers offered
 * when imported, as decideOffer allows), resources/read and prompts/get (through the guard, live, recorded) and
 * completion/complete (to the group that offers the prompt or template).
 */
export function serveOffers(server: Server, caller: OfferCaller) {
  const { settings } = caller;
  server.setRequestHandler("resources/list", async (request) => {
    const view = await viewOf(caller);
    const { page, nextCursor } = paged(view, listedOffers(view.access).resources, settings, request.params?.cursor, "resources");
    return { resources: page.map(resourceOf), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler("resources/templates/list", async (request) => {
    const view = await viewOf(caller);
    const { page, nextCursor } = paged(view, listedOffers(view.access).resourceTemplates, settings, request.params?.cursor, "resourceTemplates");
    return { resourceTemplates: page.map(templateOf), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler("prompts/list", async (request) => {
    const view = await viewOf(caller);
    const { page, nextCursor } = paged(view, listedOffers(view.access).prompts, settings, request.params?.cursor, "prompts");
    return { prompts: page.map(promptOf), ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler("resources/read", { params: ReadParams }, async ({ uri }, ctx) => (await used(caller, server, ctx, { kind: "resource", uri })) as ReadResourceResult);
  server.setRequestHandler("prompts/get", { params: GetParams }, async ({ name, arguments: args = {} }, ctx) => (await used(caller, server, ctx, { kind: "prompt", name, arguments: args })) as GetPromptResult);
  server.setRequestHandler("completion/complete", async (request) => complete(caller, request.params));
}
