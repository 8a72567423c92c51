import type { CallSigner, CallTokens } from "./call-token";
import { executorError, noNativeImplementation } from "./errors";
import { runHttpExecutor } from "./http";
import { loadMcp, loadMcpOffers } from "./load-mcp";
export { closeMcpExecutor } from "./load-mcp";
import { upstreamOf } from "../offer/uri";
import { upstreamName } from "./mcp-tools";
import { loadStdio } from "./stdio-load";
import type { CallPeople, InputAnswers } from "./relay";
import type { SecretSource } from "./secrets";
import { timedOut } from "./timeout";
import type { Executor, HttpExecutor, McpExecutor, StdioExecutor, ToolResult } from "./schema";

export { Executor, McpExecutor, SecretRef, StdioExecutor, ToolResult } from "./schema";
export { hostStdioServers } from "./stdio-host";
export type { SandboxedCommand, StdioHost, StdioLaunch } from "./stdio-host";
export { loadStdio } from "./stdio-load";
export { EXECUTOR_ERRORS, executorError } from "./errors";
export { defaultSecrets, environmentSecrets, linkedSecrets, SECRET_ENV_PREFIX } from "./secrets";
export type { SecretSource } from "./secrets";
export { EXECUTOR_TYPES, executorSummary, executorTimeoutMs, isBuiltinOnly, runsIn } from "./types";
export type { ExecutorType } from "./types";

/**
 * One call as an executor receives it: the real (validated) arguments, and the agent's department when it has one.
 * `kind`: a resource read (`arguments.uri`, the agent's URI) or a prompt get (`tool`, toolgate's prompt name), not a tool's call.
 */
export type ExecutorCall = { callId: string; tool: string; agentId: string; roleId: string; department?: string; arguments: Record<string, unknown>; kind?: "resource" | "prompt" };

/** The tools toolgate runs itself (the built-in area's `nativeRunner`): one call, until its signal aborts. */
export type Natives = { run(call: ExecutorCall, signal: AbortSignal): Promise<ToolResult> };

/**
 * `people`: where what an MCP module sends during the call goes (the agent's MCP client, the operators).
 * `signer`: signs the call tokens the requests to the executor carry, one for each.
 * `admitted`: the call's admission, still being written. The call is made ready meanwhile (its token signed, its
 * request built) and nothing reaches the executor before it resolves; its timeout counts from then. Rejected
 * (NotAdmitted): the call ends there, unsent.
 */
export type RunOptions = {
  timeoutMs: number;
  natives?: Natives;
  secrets: SecretSource;
  signer: CallSigner;
  people?: CallPeople;
  answers?: InputAnswers;
  admitted?: Promise<void>;
  /** The group whose tool is called: a stdio server's process is its group's. */
  group?: string;
};
export type { CallPeople, CallRelay, HeldOpen, InputAnswers, InputRequests, OperatorQuestions, RelayedRequest } from "./relay";
export { InputRequired } from "./relay";
export { NotAdmitted } from "./admitted";

export { timedOut } from "./timeout";
export { argumentsHash, CALL_KEY_PERIOD_MS, CALL_TOKEN_HEADER, CALL_TOKEN_ISSUER, CallSigner } from "./call-token";
export type { CallTokens, Jwks } from "./call-token";

/** The call tokens the executor receives: for its URL, the call as the executor knows it, until the call's deadline. */
const signedFor = (executor: HttpExecutor | McpExecutor, call: ExecutorCall, { signer, timeoutMs }: Pick<RunOptions, "signer" | "timeoutMs">): CallTokens =>
  signer.tokensFor({ ...call, audience: executor.url, timeoutMs });

/** What a call forwarded to an MCP server carries besides its token: its people, a paused call's (or a read's or get's) answers, its admission. */
const forwarded = ({ people, answers, admitted }: RunOptions) => ({ ...(people ? { people } : {}), ...(answers ? { answers } : {}), ...(admitted ? { admitted } : {}) });

/** The group whose process runs a stdio server's call, read or get. */
function stdioGroup(call: ExecutorCall, { group }: RunOptions) {
  if (!group) throw executorError("executor_failed", `"${call.tool}" is served by a stdio MCP server, and this call names no group to run it in.`, { recoverable: false });
  return group;
}

const clientExecuted = (tool: string) =>
  executorError("client_executed", `The tool "${tool}" runs in the agent's runtime, not in toolgate.`);

/** Runs a native tool until its timeout; past it the tool's signal is aborted and the call ends with tool_timeout. */
async function runNative(call: ExecutorCall, { natives, timeoutMs, admitted }: RunOptions): Promise<ToolResult> {
  if (!natives) throw noNativeImplementation(call.tool);
  await admitted;
  const signal = AbortSignal.timeout(timeoutMs);
  const aborted = new Promise<never>((_, fail) => signal.addEventListener("abort", () => fail(timedOut(call.tool, timeoutMs)), { once: true }));
  return Promise.race([natives.run(call, signal), aborted]);
}

/** The token names the tool as the server knows it: its own name, without toolgate's prefix. */
const runMcp = async (executor: McpExecutor, call: ExecutorCall, options: RunOptions) =>
  (await loadMcp()).runMcpExecutor(executor, call, options.secrets, options.timeoutMs, {
    ...forwarded(options),
    callToken: signedFor(executor, { ...call, tool: upstreamName(executor, call.tool) }, options),
  });

/** A stdio server's process is its group's, kept warm; no token: the call never leaves this machine. */
const runStdio = async (executor: StdioExecutor, call: ExecutorCall, options: RunOptions) =>
  (await loadStdio()).runStdioExecutor(stdioGroup(call, options), executor, call, options.secrets, options.timeoutMs, forwarded(options));

const runHttp = async (executor: HttpExecutor, call: ExecutorCall, options: RunOptions) =>
  runHttpExecutor(executor, call, options.timeoutMs, {
    secrets: options.secrets,
    callToken: signedFor(executor, call, options),
    ...(options.admitted ? { admitted: options.admitted } : {}),
  });

type Runner<E extends Executor> = (executor: E, call: ExecutorCall, options: RunOptions) => Promise<ToolResult>;

/** How each type of executor carries out a call (its other facts are in types.ts). Client-executed tools run in the agent's runtime, which reports their result: they never reach here. */
const RUNNERS: { [T in Executor["type"]]: Runner<Extract<Executor, { type: T }>> } = {
  http: runHttp,
  mcp: runMcp,
  stdio: runStdio,
  client: (_executor, call) => {
    throw clientExecuted(call.tool);
  },
  native: (_executor, call, options) => runNative(call, options),
};

/** What the server knows a read or get by: its own URI, or the prompt's name without toolgate's prefix. */
const offerOf = (executor: McpExecutor | StdioExecutor, call: ExecutorCall) =>
  call.kind === "resource"
    ? { kind: "resource" as const, uri: upstreamOf(String(call.arguments.uri))?.upstream ?? String(call.arguments.uri) }
    : { kind: "prompt" as const, name: upstreamName(executor, call.tool), arguments: call.arguments as Record<string, string> };

/** A resource read or prompt get, forwarded live to the MCP server under what it knows them by; its token names the method. */
async function runMcpOffer(executor: McpExecutor, call: ExecutorCall, options: RunOptions) {
  const offer = offerOf(executor, call);
  const signed = { ...call, tool: offer.kind === "resource" ? "resources/read" : offer.name, arguments: offer.kind === "resource" ? { uri: offer.uri } : offer.arguments };
  return (await loadMcpOffers()).runMcpOffer(executor, call.tool, offer, options.secrets, options.timeoutMs, {
    ...forwarded(options),
    callToken: signedFor(executor, signed, options),
  });
}

/** A stdio server's read or get, on its group's process, as its calls are (no call token: nothing leaves the machine). */
async function runStdioOffer(executor: StdioExecutor, call: ExecutorCall, options: RunOptions) {
  const group = stdioGroup(call, options);
  const [offers, stdio] = await Promise.all([loadMcpOffers(), loadStdio()]);
  return offers.runMcpOffer(stdio.stdioUpstream(group, executor), call.tool, offerOf(executor, call), options.secrets, options.timeoutMs, forwarded(options));
}

const offersNothing = (executor: Executor, call: ExecutorCall) =>
  executorError("executor_failed", `The group's ${executor.type} executor offers no resources or prompts, so "${call.tool}" cannot be used.`, { recoverable: false });

/** How the executors that speak MCP serve a resource read or a prompt get; no other offers any. */
const OFFER_RUNNERS: { [T in Executor["type"]]?: Runner<Extract<Executor, { type: T }>> } = { mcp: runMcpOffer, stdio: runStdioOffer };

/**
 * Carries out one call with the group's executor: http (POSTed to the module), mcp (forwarded to an MCP server), native
 * (inside toolgate); a resource read or prompt get with the executor's offer runner.
 */
export async function run(executor: Executor, call: ExecutorCall, options: RunOptions): Promise<ToolResult> {
  if (!call.kind) return (RUNNERS[executor.type] as Runner<Executor>)(executor, call, options);
  const runner = OFFER_RUNNERS[executor.type] as Runner<Executor> | undefined;
  if (!runner) throw offersNothing(executor, call);
  return runner(executor, call, options);
}
