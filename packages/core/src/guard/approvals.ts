import { loadView, viewDeciding } from "../access/index";
import { retentionExpiry, transitions } from "../call/lifecycle";
import type { Transition } from "../call/lifecycle";
import { redactArguments, storedResult } from "../call/redact";
import type { ClientResult } from "../call/schema";
import type { CallRecord } from "../call/schema";
import { uncontended } from "../contention";
import type { ToolgateError } from "../error";
import { applyTransition, applyWhileAgentActive, forgetPendingArguments, getCall, getPendingCall } from "../dynamo/calls";
import type { PendingCall } from "../dynamo/calls";
import { getAgent } from "../dynamo/agents";
import { agentError } from "../agent/errors";
import { callError, callNotFound } from "../call/errors";
import { guardError } from "./errors";
import type { GuardDeps } from "./deps";
import { admissionOf, plan } from "./plan";
import { questionAsked } from "../events/index";
import { AskUserArguments } from "../question/schema";
import { runAndSettle } from "./run";
import type { RunOutcome } from "./run";

export type ApprovalOutcome =
  | RunOutcome
  | { callId: string; status: "authorized"; tool: string; arguments: Record<string, unknown>; deadline: string }
  | { callId: string; status: "awaiting_answer"; tool: string; deadline: string };

/** The call's agent was terminated (before the approval, or while it was being given): the call can never run. */
const agentTerminated = (record: CallRecord) =>
  agentError(
    "agent_terminated",
    `The call "${record.callId}" can no longer run: its agent "${record.agentId}" was terminated, which cancels the calls it left waiting.`,
    { callId: record.callId, agentId: record.agentId },
  );

const alreadyAnswered = (record: CallRecord) =>
  record.status === "cancelled"
    ? agentTerminated(record)
    : guardError("call_already_answered", `The call "${record.callId}" is not awaiting confirmation: it is ${record.status}.`, {
        callId: record.callId,
        status: record.status,
      });

/** The real arguments kept (sealed) beside a waiting call, or undefined when none are kept or they cannot be opened. */
export function pendingArguments(deps: Pick<GuardDeps, "seal">, pending: PendingCall | undefined) {
  if (pending?.sealed !== undefined) return deps.seal.open(pending.sealed) as Record<string, unknown> | undefined;
  return pending?.legacyArguments;
}

const noSuchApproval = (callId: string) => callError("call_not_found", `There is no call "${callId}" that asked for confirmation.`);

async function awaitingCall(deps: GuardDeps, callId: string) {
  const pending = await getPendingCall(deps.db, callId);
  if (!pending) throw noSuchApproval(callId);
  const record = await getCall(deps.db, pending.agentId, callId);
  if (!record) throw noSuchApproval(callId);
  const args = pendingArguments(deps, pending);
  if (record.status !== "awaiting_confirmation" || !args) throw alreadyAnswered(record);
  return { record, args };
}

/** Applies a transition; when something else (another answer, cleanup) moved the call first, the caller hears what it is now. */
async function answer(deps: GuardDeps, transition: Transition, notAnswerable: (current: CallRecord) => ToolgateError) {
  const written = await uncontended(deps.db.contentionDeadlineMs, () => applyTransition(deps.db, transition, retentionExpiry(deps.settings, transition.to)));
  if (written.kind === "moved") throw notAnswerable(written.current ?? transition.to);
}

/**
 * An admin's approval: the guard's checks run again on fresh reads, and the call runs exactly once, however many
 * approvals arrive together. It is written only while the agent is active, so an approval racing the agent's
 * termination either runs the call (approved first) or is refused (the termination cancels it).
 */
export async function approve(deps: GuardDeps, callId: string, admin: string, now: Date): Promise<ApprovalOutcome> {
  const { record, args } = await awaitingCall(deps, callId);
  const agent = await getAgent(deps.db, record.agentId);
  if (!agent || agent.status !== "active") throw agentTerminated(record);
  const planned = await plan((await viewDeciding(deps, await loadView(deps, agent, "fresh"), record.tool)).access, record.tool, args, deps.settings);
  if (planned.kind === "refuse")
    throw guardError("no_longer_allowed", `The call can no longer run: ${planned.error.message} Deny it instead.`, { reason: planned.error.code });
  const { executedBy, timeoutMs } = admissionOf(planned);
  const approved = transitions.approved(record, admin, executedBy, timeoutMs, deps.settings, now);
  const written = await uncontended(deps.db.contentionDeadlineMs, () => applyWhileAgentActive(deps.db, { ...approved, from: "awaiting_confirmation" }, retentionExpiry(deps.settings, record)));
  if (written.kind === "agent_inactive") throw agentTerminated(record);
  if (written.kind === "moved") throw alreadyAnswered(written.current ?? record);
  const keptForTheResult = approved.to.status === "awaiting_answer" || (approved.to.status === "authorized" && redactArguments(args).secrets.length > 0);
  if (!keptForTheResult) await forgetPendingArguments(deps.db, callId);
  if (approved.to.status === "awaiting_answer") {
    await deps.events.publish(questionAsked(approved.to, AskUserArguments.parse(args)));
    return { callId, status: "awaiting_answer", tool: record.tool, deadline: approved.to.deadline! };
  }
  if (approved.to.status === "authorized") return { callId, status: "authorized", tool: record.tool, arguments: args, deadline: approved.to.deadline! };
  return runAndSettle(deps, planned.executor, approved.to, args, timeoutMs, undefined, { department: agent.department });
}

export async function deny(deps: GuardDeps, callId: string, admin: string, now: Date): Promise<CallRecord> {
  const { record } = await awaitingCall(deps, callId);
  const denied = transitions.denied(record, admin, now);
  await answer(deps, denied, alreadyAnswered);
  await forgetPendingArguments(deps.db, callId);
  return denied.to;
}

const notAwaitingResult = (record: CallRecord) =>
  guardError("call_not_awaiting_result", `The call "${record.callId}" is not waiting for a result: it is ${record.status}.`, {
    callId: record.callId,
    status: record.status,
  });

/** The agent runtime's result for a client-executed call; accepted once, stored with no secret of the call's arguments. */
export async function reportResult(deps: GuardDeps, agentId: string, callId: string, result: ClientResult, now: Date): Promise<CallRecord> {
  const [record, pending] = await Promise.all([getCall(deps.db, agentId, callId), getPendingCall(deps.db, callId)]);
  if (!record) throw callNotFound(agentId, callId);
  if (record.status !== "authorized") throw notAwaitingResult(record);
  const { secrets } = redactArguments(pending?.agentId === agentId ? (pendingArguments(deps, pending) ?? {}) : {});
  const reported = transitions.reported(record, storedResult(result, secrets), now);
  await answer(deps, reported, notAwaitingResult);
  if (pending) await forgetPendingArguments(deps.db, callId);
  return reported.to;
}
