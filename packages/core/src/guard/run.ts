import { ToolgateError } from "../error";
import type { CallRecord, ToolResult } from "../call/schema";
import { redactArguments, storedError, storedResult } from "../call/redact";
import { settleCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { runHttpExecutor } from "../executor/http";
import type { Executor } from "../group/index";
import type { ToolRegistry } from "../tool/registry";
import { retentionExpiry } from "./settings";
import type { GuardSettings } from "./settings";

export type RunOutcome = { callId: string; status: "completed" | "error"; result: ToolResult };

type RunDeps = { db: Db; settings: GuardSettings; natives: ToolRegistry };

const timedOut = (tool: string, timeoutMs: number) =>
  new ToolgateError(504, "tool_timeout", `The tool "${tool}" did not finish within ${timeoutMs} ms.`, { timeoutMs, recoverable: true });

async function execute(
  executor: Executor,
  natives: ToolRegistry,
  record: CallRecord,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<ToolResult> {
  if (executor.type === "http")
    return runHttpExecutor(executor, { callId: record.callId, tool: record.tool, arguments: args, agentId: record.agentId, roleId: record.roleId }, timeoutMs);
  if (executor.type === "native") {
    const tool = natives.get(record.tool);
    if (!tool) throw new ToolgateError(501, "no_executor", `toolgate has no native implementation of "${record.tool}".`, { recoverable: false });
    const signal = AbortSignal.timeout(timeoutMs);
    const result = await natives.execute(record.tool, args, { callId: record.callId, sessionID: record.agentId, signal });
    if (signal.aborted) throw timedOut(record.tool, timeoutMs);
    return { content: result.content, type: result.type, ...(result.metadata ? { metadata: result.metadata } : {}) };
  }
  throw new ToolgateError(409, "client_executed", `The tool "${record.tool}" runs in the agent's runtime, not in toolgate.`);
}

/** The tool ran but its outcome could not be written: retrying blindly could run it twice, so the answer says where to look. */
const outcomeNotRecorded = (running: CallRecord, cause: ToolgateError) =>
  new ToolgateError(
    503,
    "store_unavailable",
    `The tool "${running.tool}" ran, but toolgate's database stopped answering before its outcome was recorded. Do not simply call it again: once the database is back, read GET /agents/${running.agentId}/calls/${running.callId} to see how it ended.`,
    { ...cause.details, callId: running.callId, toolRan: true },
    { cause },
  );

const statusOf = (failure: ToolgateError): CallRecord["status"] =>
  failure.code === "tool_timeout" ? "timed_out" : failure.status === 403 ? "refused" : "error";

/**
 * Runs an admitted call with its executor, records the outcome once (with no secret of the arguments in it),
 * and answers as the caller should see it. A 403 from the tool itself (a native tool refusing on permission) is recorded as refused.
 */
export async function runAndSettle(deps: RunDeps, executor: Executor, running: CallRecord, args: Record<string, unknown>, timeoutMs: number): Promise<RunOutcome> {
  const started = Date.now();
  let result: ToolResult | undefined;
  let failure: ToolgateError | undefined;
  try {
    result = await execute(executor, deps.natives, running, args, timeoutMs);
  } catch (error) {
    if (!(error instanceof ToolgateError) || error.status === 503) throw error;
    failure = error;
  }
  const { secrets } = redactArguments(args);
  const finished = new Date();
  const timing = { finishedAt: finished.toISOString(), durationMs: finished.getTime() - started };
  const settled: CallRecord = result
    ? { ...running, ...timing, status: result.type === "error" ? "error" : "completed", result: storedResult(result, secrets) }
    : { ...running, ...timing, status: statusOf(failure!), error: storedError({ code: failure!.code, message: failure!.message }, secrets) };
  const recorded = await settleCall(deps.db, settled, "running", { expiresAt: retentionExpiry(deps.settings, new Date(Date.parse(running.startedAt))) }).catch(
    (error: unknown) => {
      throw error instanceof ToolgateError && error.code === "store_unavailable" ? outcomeNotRecorded(running, error) : error;
    },
  );
  if (!recorded) failure = timedOut(running.tool, timeoutMs);
  if (failure) throw new ToolgateError(failure.status, failure.code, failure.message, { ...failure.details, callId: running.callId });
  return { callId: running.callId, status: settled.status as RunOutcome["status"], result: result! };
}
