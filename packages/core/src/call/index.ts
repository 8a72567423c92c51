import { conflict, forbidden, notFound, ToolgateError } from "../error";
import { getAgent } from "../dynamo/agents";
import { forgetPendingArguments, getCall, getPendingCall, listCalls, settleCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { reauthorize } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { runAndSettle } from "../guard/run";
import type { RunOutcome } from "../guard/run";
import { DEADLINE_GRACE_MS, retentionExpiry } from "../guard/settings";
import { parseOr } from "../validation";
import { redactArguments, storedResult } from "./redact";
import { ClientResult } from "./schema";
import type { CallRecord } from "./schema";

export { CallRecord, CallRequest, ToolResult } from "./schema";

export const MAX_PAGE = 100;

export const history = (db: Db, agentId: string, limit: number, cursor: string | undefined) => listCalls(db, agentId, limit, cursor);

export async function get(db: Db, agentId: string, callId: string): Promise<CallRecord> {
  const record = await getCall(db, agentId, callId);
  if (!record) throw notFound("call_not_found", `Agent "${agentId}" has no call "${callId}".`);
  return record;
}

const expiryOf = (deps: Pick<GuardDeps, "settings">, record: CallRecord) => ({
  expiresAt: retentionExpiry(deps.settings, new Date(Date.parse(record.startedAt))),
});

const alreadyAnswered = (record: CallRecord) =>
  conflict("call_already_answered", `The call "${record.callId}" is not awaiting confirmation: it is ${record.status}.`, {
    callId: record.callId,
    status: record.status,
  });

/** The real arguments kept (sealed) beside a waiting call, or undefined when none are kept or they cannot be opened. */
function pendingArguments(deps: Pick<GuardDeps, "seal">, pending: Awaited<ReturnType<typeof getPendingCall>>) {
  if (pending?.sealed !== undefined) return deps.seal.open(pending.sealed) as Record<string, unknown> | undefined;
  return pending?.legacyArguments;
}

async function awaitingCall(deps: Pick<GuardDeps, "db" | "seal">, callId: string) {
  const pending = await getPendingCall(deps.db, callId);
  if (!pending) throw notFound("call_not_found", `There is no call "${callId}" that asked for confirmation.`);
  const record = await get(deps.db, pending.agentId, callId);
  const args = pendingArguments(deps, pending);
  if (record.status !== "awaiting_confirmation" || !args) throw alreadyAnswered(record);
  return { record, args };
}

export type ApprovalOutcome =
  | RunOutcome
  | { callId: string; status: "authorized"; tool: string; arguments: Record<string, unknown> };

/** An admin's approval: the call runs exactly once, however many approvals arrive together. */
export async function approve(deps: GuardDeps, callId: string, admin: string, now: Date): Promise<ApprovalOutcome> {
  const { record, args } = await awaitingCall(deps, callId);
  const agent = await getAgent(deps.db, record.agentId);
  if (!agent || agent.status !== "active") throw forbidden("agent_terminated", `The agent "${record.agentId}" is no longer active.`);
  const planned = await reauthorize(deps, agent, record.tool, args);
  if (planned.kind === "refuse")
    throw conflict("no_longer_allowed", `The call can no longer run: ${planned.error.message} Deny it instead.`, { reason: planned.error.code });
  const { executor, timeoutMs } = planned;
  const status = executor.type === "client" ? "authorized" : "running";
  const waitMs = status === "authorized" ? Math.max(timeoutMs, deps.settings.clientResultTimeoutMs) : timeoutMs + DEADLINE_GRACE_MS;
  const next: CallRecord = {
    ...record,
    status,
    approvedBy: admin,
    decidedAt: now.toISOString(),
    deadline: new Date(now.getTime() + waitMs).toISOString(),
  };
  if (!(await settleCall(deps.db, next, "awaiting_confirmation", expiryOf(deps, record))))
    throw alreadyAnswered((await getCall(deps.db, record.agentId, callId)) ?? record);
  const keptForTheResult = status === "authorized" && redactArguments(args).secrets.length > 0;
  if (!keptForTheResult) await forgetPendingArguments(deps.db, callId);
  if (status === "authorized") return { callId, status, tool: record.tool, arguments: args };
  return runAndSettle(deps, executor, next, args, timeoutMs);
}

export async function deny(deps: GuardDeps, callId: string, admin: string, now: Date): Promise<CallRecord> {
  const { record } = await awaitingCall(deps, callId);
  const next: CallRecord = {
    ...record,
    status: "denied",
    deniedBy: admin,
    decidedAt: now.toISOString(),
    finishedAt: now.toISOString(),
    durationMs: now.getTime() - Date.parse(record.startedAt),
    error: { code: "denied", message: "An administrator denied this call." },
  };
  delete next.deadline;
  if (!(await settleCall(deps.db, next, "awaiting_confirmation", expiryOf(deps, record))))
    throw alreadyAnswered((await getCall(deps.db, record.agentId, callId)) ?? record);
  await forgetPendingArguments(deps.db, callId);
  return next;
}

/** The agent runtime's result for a client-executed call; accepted once, stored with no secret of the call's arguments. */
export async function reportResult(deps: GuardDeps, agentId: string, callId: string, input: unknown, now: Date): Promise<CallRecord> {
  const result = parseOr(ClientResult, input, "invalid_result", "The tool result");
  const [record, pending] = await Promise.all([get(deps.db, agentId, callId), getPendingCall(deps.db, callId)]);
  const notAwaiting = () =>
    new ToolgateError(409, "call_not_awaiting_result", `The call "${callId}" is not waiting for a result: it is ${record.status}.`, {
      callId,
      status: record.status,
    });
  if (record.status !== "authorized") throw notAwaiting();
  const { secrets } = redactArguments(pending?.agentId === agentId ? (pendingArguments(deps, pending) ?? {}) : {});
  const next: CallRecord = {
    ...record,
    status: result.type === "error" ? "error" : "completed",
    result: storedResult(result, secrets),
    finishedAt: now.toISOString(),
    durationMs: now.getTime() - Date.parse(record.startedAt),
  };
  delete next.deadline;
  if (!(await settleCall(deps.db, next, "authorized", expiryOf(deps, record)))) {
    record.status = (await getCall(deps.db, agentId, callId))?.status ?? record.status;
    throw notAwaiting();
  }
  if (pending) await forgetPendingArguments(deps.db, callId);
  return next;
}
