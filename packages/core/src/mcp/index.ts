import { createMcpHandler, originValidationResponse, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import type { AuthInfo, CallToolResult, InputRequiredResult, JSONRPCRequest, McpHttpHandler, McpRequestContext, Result, ServerContext } from "@modelcontextprotocol/server";
import { ASK_USER, AskUserArguments } from "../question/schema";
import { askingRoute, askTheUser, questionAnswered } from "./ask";
import type { AskingRoute } from "./ask";
import { clientOf, handshakeSession, keepLogLevel, logLevelOf, SESSION_HEADER } from "./handshake";
import type { ClientSession } from "./handshake";
import { askOverStream, resumeQuestion } from "./questions";
import { clientRelay, keepReplies, once, repliesIn } from "./relay";
import type { ClientRelay } from "./relay";
import * as z from "zod";
import * as Call from "../call/index";
import type { Agent } from "../agent/schema";
import { storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { deny, freshView, guardedCall, isCallerRefusal } from "../guard/index";
import type { Answering, GuardDeps, GuardedCallResponse, RunOutcome } from "../guard/index";
import { goOn } from "../guard/resume";
import type { PausedCall } from "../guard/resume";
import { InputRequired } from "../executor/index";
import { foreignRequestState, pauseCall, pausedOf } from "./paused";
import { CALL_TOOL } from "../builtin/tool-search";
import { completed, refused, upstreamError, waiting } from "./results";
import type { WaitingCall } from "./results";
import type { McpSettings } from "./schema";
import { declaresTasks, noInput, notCancellable, taskOf, TASKS_EXTENSION, unknownTask } from "./tasks";
import { StaleCursorError, toolsPage } from "./tools";
import { serveOffers } from "./offers";
import { isListen, serveListen } from "./streams-listen";
import { openSessionStream } from "./streams-session";
import { serveSubscriptions } from "./subscriptions-serve";

export { DEFAULT_MCP_SETTINGS, McpSettings } from "./schema";
export { annotationsOf } from "../tool/exports";
export { mcpTools } from "./tools";
export type { RefusalMeta } from "./results";
export { closeMcpStreams } from "./streams-shutdown";

/** Who is on the other end of one MCP request, and what serves them; authenticated at the edge. */
export type McpCaller = { deps: GuardDeps; agent: Agent; settings: McpSettings };

/**
 * One request's caller, and which of its 2025-era clients sent it; the refusal of the caller itself if the guard found
 * its token revoked or its agent terminated; and, for a call answered while its record was written, whether that
 * record stands, and how to answer again if it does not.
 */
type McpRequest = McpCaller & {
  session: ClientSession;
  refusal?: ToolgateError;
  recording?: Promise<boolean>;
  answerAgain?: () => Promise<CallToolResult | InputRequiredResult>;
};

const MAX_REQUEST_BYTES = 1024 * 1024;
const SERVER_INFO = { name: "toolgate", version: "1.0.0" };
const INSTRUCTIONS =
  "toolgate governs these tools, resources and prompts: every call, read and get is checked against your role's policy and recorded. A refused call comes back as an error result whose _meta.code says why and whether to retry; a refused read or get as an error whose data.code says the same.";

const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/** The caller's tools now: its role and the catalog are read fresh, and so is the agent, so a revoked token lists nothing. */
async function listTools({ deps, agent, settings }: McpCaller, cursor: string | undefined) {
  const view = await freshView(deps, agent).catch((error: unknown) => {
    throw error instanceof ToolgateError ? new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message) : error;
  });
  try {
    return toolsPage(view, settings.pageSize, cursor);
  } catch (error) {
    throw error instanceof StaleCursorError ? invalidParams(error.message) : error;
  }
}

/** A tools/call answered with a task (MCP Tasks extension) rather than a CallToolResult; see TaskAwareServer. */
class TaskCreated extends Error {
  constructor(readonly task: Result) {
    super("a task was created");
  }
}

/**
 * How one tools/call is served: as a task when waiting (the client declared the Tasks extension); with what happens
 * during it relayed to the client; and, for ask_user, how the client's user is asked, if it can be.
 */
type CallMode = { tasks: boolean; relay: ClientRelay; asks?: AskingRoute; paused?: { call: PausedCall; inputResponses: Record<string, unknown> } };

/**
 * One tools/call through the guard, exactly as POST /agents/:id/calls; an unknown name is a protocol error, as MCP says
 * (but a name call_tool was given is the model's mistake to correct, an isError result).
 * A call that waits for an operator (an approval, an answer) becomes a task when the client declared the extension, else an isError answer.
 * A call whose MCP server asks the client for input pauses: input_required, the call sealed in the request state, to go
 * on (`paused`) when the client sends it again with the answers.
 */
async function callTool(caller: McpRequest, name: string, args: Record<string, unknown>, mode: CallMode): Promise<CallToolResult | InputRequiredResult> {
  const { deps, agent } = caller;
  const { relay, asks, paused } = mode;
  const request = { tool: name, arguments: args };
  let answering!: Answering;
  const ran = new Promise<RunOutcome>((resolve) => (answering = resolve));
  const guarded = (async () => {
    try {
      return paused
        ? await goOn(deps, agent, paused.call, request, paused.inputResponses, { relay, answering })
        : await guardedCall(deps, agent, request, { relay, answering, ...(asks ? { askedOf: "user" as const } : {}) });
    } finally {
      await relay.settled();
    }
  })();
  const answeredWhileRecorded = await Promise.race([ran, guarded.then(nothing, nothing)]);
  if (answeredWhileRecorded) await relay.settled();
  // On a response not yet streaming, the answer is built while the call's record is written, and given once it stands (serveMcp).
  if (!answeredWhileRecorded || relay.streamed()) return answerTo(caller, name, args, mode, guarded);
  caller.recording = guarded.then((response) => response.status === 200 && response.body === answeredWhileRecorded, () => false);
  caller.answerAgain = () => answerTo(caller, name, args, mode, guarded);
  return completed(answeredWhileRecorded.callId, answeredWhileRecorded.result);
}

const nothing = () => undefined;

/** The answer to one tools/call, from what the guard made of it. */
async function answerTo(caller: McpRequest, name: string, args: Record<string, unknown>, { tasks, relay, asks }: CallMode, guarded: Promise<GuardedCallResponse>): Promise<CallToolResult | InputRequiredResult> {
  const { deps, agent } = caller;
  try {
    const response = await guarded;
    if (response.status === 200) return completed(response.body.callId, response.body.result);
    if (response.body.status === "awaiting_answer" && response.body.askedOf === "user") {
      const asked = AskUserArguments.parse(args);
      const waiting = response as WaitingCall;
      return asks === "stream" ? await askOverStream(caller, relay, waiting, asked) : askTheUser(deps.seal, response.body.callId, agent.id, asked);
    }
    if (tasks && response.body.status !== "authorized") throw new TaskCreated({ resultType: "task", ...taskOf(response.body, deps.settings.callRetentionDays) });
    return waiting(agent.id, response);
  } catch (error) {
    if (error instanceof InputRequired) return pauseCall(deps.seal, agent.id, name, args, error);
    if (error instanceof TaskCreated) throw error;
    if (error instanceof ToolgateError && isCallerRefusal(error)) throw (caller.refusal = error);
    if (error instanceof ToolgateError && error.code === "unknown_tool" && name !== CALL_TOOL) throw invalidParams(`Unknown tool: ${name}`);
    if (error instanceof ToolgateError) {
      const upstream = upstreamError(error);
      if (upstream) throw upstream;
      return refused(error);
    }
    if (error instanceof StoreUnavailableError) return refused(storeUnavailable(error));
    throw error;
  }
}

/**
 * The SDK validates every tools/call answer as a CallToolResult; a task (resultType "task") is the one other answer
 * the Tasks extension allows, so it passes around that check.
 */
class TaskAwareServer extends Server {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>) {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "tools/call") return wrapped;
    return async (request: JSONRPCRequest, ctx: ServerContext) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        if (error instanceof TaskCreated) return error.task;
        throw error;
      }
    };
  }
}

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });

/** The caller's own call behind a task id; another agent's call is as unknown as a made-up id. */
async function callOf({ deps, agent }: McpCaller, taskId: string) {
  try {
    return await Call.get(deps.db, agent.id, taskId);
  } catch (error) {
    if (error instanceof ToolgateError && error.status === 404) throw unknownTask(taskId);
    throw error;
  }
}

/** tasks/get, tasks/cancel and tasks/update, answered from the call record: nothing about a task lives in memory. */
function serveTasks(server: Server, caller: McpCaller) {
  const retentionDays = caller.deps.settings.callRetentionDays;
  server.setRequestHandler("tasks/get", { params: TaskParams }, async ({ taskId }) => taskOf(await callOf(caller, taskId), retentionDays));
  server.setRequestHandler("tasks/cancel", { params: TaskParams }, async ({ taskId }) => {
    const record = await callOf(caller, taskId);
    if (record.status !== "awaiting_confirmation") throw notCancellable(record);
    return taskOf(await deny(caller.deps, taskId, caller.agent.id, new Date()), retentionDays);
  });
  server.setRequestHandler("tasks/update", { params: TaskParams }, async ({ taskId }) => {
    await callOf(caller, taskId);
    throw noInput(taskId);
  });
}

/** The lists a client may cache for a while: each is private to the agent. */
const LISTS = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"] as const;

/** A 2025-era client's log level, kept for its later requests (each is served afresh). */
const LogLevelParams = z.looseObject({ level: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]) });

/**
 * What toolgate declares: list changes and resource subscriptions only where they can be delivered, on a stream that
 * outlives a request (responses stream: npm start), never where responses are buffered (API Gateway).
 */
const capabilitiesFor = (streams: boolean) =>
  streams
    ? { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } }
    : { tools: {}, resources: {}, prompts: {} };

function serverFor(caller: McpRequest): Server {
  const { deps, agent, settings, session } = caller;
  const server = new TaskAwareServer(SERVER_INFO, {
    capabilities: { ...capabilitiesFor(settings.streams), completions: {}, logging: {}, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
    cacheHints: Object.fromEntries(LISTS.map((list) => [list, { ttlMs: caller.settings.listTtlMs, cacheScope: "private" as const }])),
  });
  server.setRequestHandler("tools/list", (request) => listTools(caller, request.params?.cursor));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    if (caller.answerAgain) return caller.answerAgain();
    const { name, arguments: args = {} } = request.params;
    const client = session.kind === "session" ? session.declared : undefined;
    const logLevel = once(() => logLevelOf(deps.db, session));
    const relay = clientRelay({ db: deps.db, agentId: agent.id, server, ctx, streams: settings.streams, client, logLevel });
    const tasks = declaresTasks(ctx.mcpReq.envelope);
    const state = ctx.mcpReq.requestState();
    if (name !== ASK_USER) {
      const paused = pausedOf(deps.seal, state, agent.id);
      if (state !== undefined && !paused) throw foreignRequestState();
      return callTool(caller, name, args, { tasks, relay, ...(paused ? { paused: { call: paused, inputResponses: ctx.mcpReq.inputResponses ?? {} } } : {}) });
    }
    const answered = questionAnswered(deps.seal, state, agent.id);
    if (state !== undefined && !answered) throw foreignRequestState();
    if (answered) return resumeQuestion(caller, answered, args, ctx.mcpReq.inputResponses);
    return callTool(caller, name, args, { tasks, relay, asks: askingRoute(ctx.mcpReq.envelope, settings.streams, client) });
  });
  server.setRequestHandler("logging/setLevel", { params: LogLevelParams }, async ({ level }) => {
    await keepLogLevel(deps.db, session, level);
    return {};
  });
  serveTasks(server, caller);
  const refuseCaller = (error: ToolgateError): never => {
    throw (caller.refusal = error);
  };
  serveOffers(server, { deps, agent, settings, refuseCaller });
  if (settings.streams) serveSubscriptions(server, { deps, agent, session, refuseCaller });
  return server;
}

const serverOf = (context: McpRequestContext) => serverFor(callerOf(context));

const callerOf = (context: McpRequestContext): McpRequest => {
  const caller = context.authInfo?.extra?.caller as McpRequest | undefined;
  if (!caller) throw new Error("An MCP request reached the server without an authenticated agent.");
  return caller;
};

const logError = (error: Error) => console.error(JSON.stringify({ level: "error", area: "mcp", error: error.message }));

let handler: McpHttpHandler | undefined;

/**
 * One handler per process; nothing in it outlives a request, so any instance serves any request (stateless, both
 * eras). A response is one JSON body unless the call sends something before its result (progress, a log message, a
 * request to the client), which makes it a stream.
 */
const mcpHandler = () =>
  (handler ??= createMcpHandler(serverOf, {
    legacy: "stateless",
    responseMode: "auto",
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: logError,
  }));

/**
 * Serves one MCP request of an authenticated agent: browsers only from allowed origins, then the SDK's handler.
 * `parsedBody` is the POST's JSON when the edge has read it already (the request's body is then not read again).
 * A tools/call whose guard finds the caller's token revoked or its agent terminated throws that refusal, for the
 * edge to answer as it answers any request of such a caller (401 or 403), not as a tool's result.
 * A 2025-era handshake's answer gives the client a session id, what it declared sealed in it: its later requests say
 * what it takes, whatever the agent's other clients declared; each request is still served afresh, on any instance.
 */
export async function serveMcp(request: Request, parsedBody: unknown, caller: McpCaller): Promise<Response> {
  const ownHost = new URL(request.url).hostname;
  const rejected = originValidationResponse(request, [ownHost, ...caller.settings.allowedOrigins]);
  if (rejected) return rejected;
  const replies = repliesIn(parsedBody);
  if (replies) {
    await keepReplies(caller.deps.db, caller.agent.id, replies);
    return new Response(null, { status: 202 });
  }
  const sessionId = handshakeSession(caller.deps.seal, caller.agent.id, parsedBody);
  const served: McpRequest = { ...caller, session: clientOf(caller.deps.seal, request, caller.agent.id) };
  const authInfo = { token: "[agent token]", clientId: caller.agent.id, scopes: [], extra: { caller: served } };
  const streamed = caller.settings.streams ? await serveStream(request, parsedBody, served, authInfo) : undefined;
  if (streamed) return streamed;
  const options = parsedBody === undefined ? { authInfo } : { authInfo, parsedBody };
  const response = await mcpHandler().fetch(request, options);
  if (served.recording && !(await served.recording)) return mcpHandler().fetch(request, options);
  if (served.refusal) throw served.refusal;
  return sessionId && response.ok ? withHeader(response, SESSION_HEADER, sessionId) : response;
}

/**
 * What outlives a request, where responses stream: a 2025-era session's own stream (GET) and a 2026-07-28 listen, each
 * fed only what this agent may see. Anything else is a request like any other (undefined). A DELETE stays 405: a
 * sealed session id cannot be terminated, so closing the stream is how a session's subscriptions end.
 */
async function serveStream(request: Request, parsedBody: unknown, served: McpRequest, authInfo: AuthInfo): Promise<Response | undefined> {
  const { deps, agent, session } = served;
  if (request.method === "GET" && session.kind === "session") return openSessionStream(request, deps, agent, session);
  if (request.method === "POST" && isListen(parsedBody)) {
    const response = await serveListen(request, parsedBody, deps, agent, serverOf, authInfo);
    if (served.refusal) throw served.refusal;
    return response;
  }
  return undefined;
}

function withHeader(response: Response, name: string, value: string): Response {
  const headers = new Headers(response.headers);
  headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
