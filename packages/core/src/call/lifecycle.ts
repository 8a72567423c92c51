import type { CallRecord, CallStatus, StoredResult, Transition } from "./schema";

export type { Transition };

/** Statuses that wait on something (the tool, an admin, a person's answer, the agent's runtime) until a deadline cleanup enforces. */
export const PENDING_STATUSES = ["running", "awaiting_confirmation", "awaiting_answer", "authorized"] as const satisfies readonly CallStatus[];

export const isPending = (status: CallStatus) => (PENDING_STATUSES as readonly CallStatus[]).includes(status);

export type CallTimings = { callRetentionDays: number; confirmationTimeoutMs: number; clientResultTimeoutMs: number; questionTimeoutMs: number };

/** Settling a running call after its deadline is left to cleanup; this much grace covers a slow write. */
export const DEADLINE_GRACE_MS = 5_000;

/** When a call record expires (epoch seconds): its retention counted from when the call started. */
export const retentionExpiry = (timings: Pick<CallTimings, "callRetentionDays">, record: Pick<CallRecord, "startedAt">) =>
  Math.floor(Date.parse(record.startedAt) / 1000) + Math.round(timings.callRetentionDays * 86_400);

/** Who answered a question, as its record names them. */
export type AnsweredBy = Pick<CallRecord, "answeredBy" | "answeredByName">;

/** Who runs an admitted call: toolgate (its executor), the agent's runtime, or a person who answers it (ask_user). */
export type Admission = { needsConfirmation: boolean; executedBy: "toolgate" | "client" | "person"; timeoutMs: number };

/** What a call admitted now waits for, and for how long: an approval, a person's answer, the runtime's result, or the tool. */
export function waitFor({ needsConfirmation, executedBy, timeoutMs }: Admission, timings: CallTimings) {
  if (needsConfirmation) return { status: "awaiting_confirmation" as const, waitMs: timings.confirmationTimeoutMs };
  return startWaiting(executedBy, timeoutMs, timings);
}

/** Once nothing but the tool remains: it runs in toolgate (its timeout, with grace), in the runtime (its result's wait), or a person answers it. */
function startWaiting(executedBy: Admission["executedBy"], timeoutMs: number, timings: CallTimings) {
  if (executedBy === "person") return { status: "awaiting_answer" as const, waitMs: timings.questionTimeoutMs };
  return executedBy === "client"
    ? { status: "authorized" as const, waitMs: Math.max(timeoutMs, timings.clientResultTimeoutMs) }
    : { status: "running" as const, waitMs: timeoutMs + DEADLINE_GRACE_MS };
}

/**
 * A call's one deadline: when what it waits for now (an approval, its tool, its runtime's result) must have happened.
 * Computed here only; every answer that shows a waiting call shows the record's value, and a settled call has none.
 */
const deadlineAfter = (from: Date, waitMs: number) => new Date(from.getTime() + waitMs).toISOString();

const finished = (record: CallRecord, now: Date) => ({ finishedAt: now.toISOString(), durationMs: now.getTime() - Date.parse(record.startedAt) });

const withoutDeadline = ({ deadline: _deadline, ...record }: CallRecord): CallRecord => record;

export const transitions = {
  admitted(base: CallRecord, admission: Admission, timings: CallTimings): Transition {
    const { status, waitMs } = waitFor(admission, timings);
    return { from: null, to: { ...base, status, deadline: deadlineAfter(new Date(Date.parse(base.startedAt)), waitMs) } };
  },

  refused(base: CallRecord, error: CallRecord["error"] & {}, now: Date, from: CallStatus | null = null): Transition {
    return { from, to: { ...withoutDeadline(base), status: "refused", error, ...finished(base, now) } };
  },

  /** The tool's outcome: its result, or the failure of its executor (a refusal the tool itself made is recorded as refused). */
  settled(running: CallRecord, outcome: { result: StoredResult } | { error: { status: number; code: string; message: string } }, ranMs: number, now: Date): Transition {
    const timing = { finishedAt: now.toISOString(), durationMs: ranMs };
    const ran = withoutDeadline(running);
    if ("result" in outcome)
      return { from: "running", to: { ...ran, ...timing, status: outcome.result.type === "error" ? "error" : "completed", result: outcome.result } };
    const { status, code, message } = outcome.error;
    const to: CallStatus = code === "tool_timeout" ? "timed_out" : status === 403 ? "refused" : "error";
    return { from: "running", to: { ...ran, ...timing, status: to, error: { code, message } } };
  },

  approved(record: CallRecord, admin: string, executedBy: Admission["executedBy"], timeoutMs: number, timings: CallTimings, now: Date): Transition {
    const { status, waitMs } = startWaiting(executedBy, timeoutMs, timings);
    return { from: "awaiting_confirmation", to: { ...record, status, approvedBy: admin, decidedAt: now.toISOString(), deadline: deadlineAfter(now, waitMs) } };
  },

  denied(record: CallRecord, admin: string, now: Date): Transition {
    return {
      from: "awaiting_confirmation",
      to: {
        ...withoutDeadline(record),
        status: "denied",
        deniedBy: admin,
        decidedAt: now.toISOString(),
        ...finished(record, now),
        error: { code: "denied", message: "An administrator denied this call." },
      },
    };
  },

  /** A person answered a question (or declined it): the call completes with that as its result. */
  answered(record: CallRecord, result: StoredResult, by: AnsweredBy, now: Date): Transition {
    return { from: "awaiting_answer", to: { ...withoutDeadline(record), status: "completed", ...by, result, ...finished(record, now) } };
  },

  /** A module's question whose call ended before anyone answered it: nobody is waiting for the answer any more. */
  withdrawn(record: CallRecord, now: Date): Transition {
    const error = { code: "question_withdrawn", message: "The call that asked this question ended before it was answered, so the question was withdrawn." };
    return { from: "awaiting_answer", to: { ...withoutDeadline(record), status: "cancelled", error, ...finished(record, now) } };
  },

  reported(record: CallRecord, result: StoredResult, now: Date): Transition {
    return { from: "authorized", to: { ...withoutDeadline(record), status: result.type === "error" ? "error" : "completed", result, ...finished(record, now) } };
  },

  /** Its agent was terminated: a call still waiting for an approval or for the runtime's result can never run, so it ends. */
  cancelled(record: CallRecord, now: Date): Transition | undefined {
    const message = CANCELLATIONS[record.status];
    if (!message) return undefined;
    return {
      from: record.status,
      to: { ...withoutDeadline(record), status: "cancelled", error: { code: "agent_terminated", message }, ...finished(record, now) },
    };
  },

  /** Nobody settled a waiting call by its deadline: running ones time out, unanswered or unreported ones expire. */
  lapsed(record: CallRecord, now: Date): Transition | undefined {
    const lapse = LAPSES[record.status];
    if (!lapse) return undefined;
    return { from: record.status, to: { ...withoutDeadline(record), status: lapse.status, error: { code: lapse.code, message: lapse.message }, finishedAt: now.toISOString() } };
  },
};

const LAPSES: Partial<Record<CallStatus, { status: CallStatus; code: string; message: string }>> = {
  running: { status: "timed_out", code: "tool_timeout", message: "The call was still running past its deadline; cleanup marked it timed out." },
  awaiting_confirmation: { status: "expired", code: "confirmation_expired", message: "Nobody approved or denied the call in time; it expired." },
  awaiting_answer: { status: "expired", code: "question_expired", message: "Nobody answered the question in time; it expired unanswered." },
  authorized: { status: "expired", code: "result_not_reported", message: "The agent's runtime did not report a result in time; the call expired." },
};

/** The calls a terminated agent leaves waiting: nothing will approve them into running, nor report their result. */
const CANCELLATIONS: Partial<Record<CallStatus, string>> = {
  awaiting_confirmation: "The agent was terminated while the call awaited approval, so the call was cancelled; the tool did not run.",
  awaiting_answer: "The agent was terminated while its question awaited an answer, so the question was withdrawn.",
  authorized: "The agent was terminated before its runtime reported the call's result, so the call was cancelled; no result is accepted.",
};
