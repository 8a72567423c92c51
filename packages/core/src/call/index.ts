import { ToolgateError, notFound } from "../error";
import type { Access } from "../access/index";
import { decide } from "../access/index";
import { getCall, listCalls, putCall, settleCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { runHttpExecutor } from "../executor/http";
import { createId } from "../id";
import { parseOr } from "../validation";
import { storedArguments, storedResult } from "./redact";
import { CallRequest } from "./schema";
import type { CallRecord, ToolResult } from "./schema";

export { CallRecord, CallRequest, ToolResult } from "./schema";

export type CallSettings = { callRetentionDays: number; defaultTimeoutMs: number };

export type CallOutcome = { callId: string; status: "completed" | "error"; result: ToolResult };

/** Settling a call after its deadline is left to cleanup; this much grace covers a slow write. */
const DEADLINE_GRACE_MS = 5_000;

const expiry = (settings: CallSettings, now: Date) => ({
  expiresAt: Math.floor(now.getTime() / 1000) + Math.round(settings.callRetentionDays * 86_400),
});

const noExecutor = (tool: string, group: string) =>
  new ToolgateError(
    501,
    "no_executor",
    `The tool "${tool}" is in the group "${group}", which has no executor bound yet, so toolgate cannot run it.`,
    { toolName: tool, recoverable: false },
  );

/** Every refusal is recorded and then thrown with the call's id attached. */
async function refuse(db: Db, settings: CallSettings, base: CallRecord, error: ToolgateError): Promise<never> {
  const now = new Date();
  await putCall(
    db,
    { ...base, status: "refused", error: { code: error.code, message: error.message }, finishedAt: now.toISOString(), durationMs: 0 },
    expiry(settings, now),
  );
  throw new ToolgateError(error.status, error.code, error.message, { ...error.details, callId: base.callId });
}

/** The guard: decide, record, run, record the outcome. */
export async function call(db: Db, settings: CallSettings, access: Access, input: unknown): Promise<CallOutcome> {
  const request = parseOr(CallRequest, input, "invalid_request", "The call");
  const started = new Date();
  const base: CallRecord = {
    callId: createId("call"),
    agentId: access.agent.id,
    roleId: access.role.id,
    tool: request.tool,
    group: null,
    status: "running",
    ...storedArguments(request.arguments),
    startedAt: started.toISOString(),
  };
  const decision = decide(access, request.tool);
  if (!decision.allowed) return refuse(db, settings, { ...base, group: decision.group }, decision.error);
  const record = { ...base, group: decision.group.id };
  const executor = decision.group.executor;
  if (!executor) return refuse(db, settings, record, noExecutor(request.tool, decision.group.id));

  const timeoutMs = decision.definition["x-toolgate"]?.timeoutMs ?? executor.timeoutMs ?? settings.defaultTimeoutMs;
  const running: CallRecord = { ...record, deadline: new Date(started.getTime() + timeoutMs + DEADLINE_GRACE_MS).toISOString() };
  await putCall(db, running, expiry(settings, started));

  let result: ToolResult | undefined;
  let failure: ToolgateError | undefined;
  try {
    result = await runHttpExecutor(
      executor,
      { callId: record.callId, tool: request.tool, arguments: request.arguments, agentId: access.agent.id, roleId: access.role.id },
      timeoutMs,
    );
  } catch (error) {
    if (!(error instanceof ToolgateError)) throw error;
    failure = error;
  }
  const finished = new Date();
  const timing = { finishedAt: finished.toISOString(), durationMs: finished.getTime() - started.getTime() };
  const settled: CallRecord = result
    ? { ...running, ...timing, status: result.type === "error" ? "error" : "completed", result: storedResult(result) }
    : {
        ...running,
        ...timing,
        status: failure?.code === "tool_timeout" ? "timed_out" : "error",
        error: { code: failure!.code, message: failure!.message },
      };
  await settleCall(db, settled, "running", expiry(settings, started));
  if (failure) throw new ToolgateError(failure.status, failure.code, failure.message, { ...failure.details, callId: record.callId });
  return { callId: record.callId, status: settled.status as CallOutcome["status"], result: result! };
}

export const MAX_PAGE = 100;

export async function history(db: Db, agentId: string, limit: number, cursor: string | undefined) {
  return listCalls(db, agentId, limit, cursor);
}

export async function get(db: Db, agentId: string, callId: string): Promise<CallRecord> {
  const record = await getCall(db, agentId, callId);
  if (!record) throw notFound("call_not_found", `Agent "${agentId}" has no call "${callId}".`);
  return record;
}
