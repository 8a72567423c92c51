import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CallRecord, CallStatus } from "../call/schema";
import { completed, refusalResult } from "./results";

/** The MCP Tasks extension (SEP-2663): a tools/call may answer with a durable task the client polls. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const POLL_INTERVAL_MS = 2_000;
const DAY_MS = 24 * 60 * 60 * 1000;

type TaskStatus = "working" | "completed" | "cancelled";

/** A call record as a task: the task is the call (taskId = callId), so any instance answers for it from the store. */
const STATUS: Record<CallStatus, TaskStatus> = {
  awaiting_confirmation: "working",
  awaiting_answer: "working",
  authorized: "working",
  running: "working",
  completed: "completed",
  error: "completed",
  timed_out: "completed",
  refused: "completed",
  denied: "cancelled",
  expired: "cancelled",
  cancelled: "cancelled",
};

const MESSAGE: Partial<Record<CallStatus, string>> = {
  awaiting_confirmation: "Awaiting an operator's approval.",
  awaiting_answer: "Awaiting a person's answer.",
  authorized: "Waiting for the agent's runtime to report the result.",
  running: "Running.",
  denied: "An operator denied the call; the tool did not run.",
  expired: "Nobody approved the call before its deadline; the tool did not run.",
  cancelled: "The agent was terminated, so the call was cancelled; the tool did not run.",
};

/** What the task's status says: an expired question says so, an expired approval its own sentence. */
const statusMessage = (record: Pick<CallRecord, "status" | "error">) => (record.status === "expired" && record.error?.code === "question_expired" ? record.error.message : MESSAGE[record.status]);

/** Whether this request's client declared the extension (on 2026-07-28 every request carries its capabilities). */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The outcome of a finished call as the tool result the client would have had without a task. */
function resultOf(record: CallRecord): CallToolResult {
  if (record.result) return completed(record.callId, record.result);
  const code = record.error?.code ?? record.status;
  return refusalResult(record.error?.message ?? `The call ended ${record.status}.`, { code, callId: record.callId });
}

/** The task view of a call: its status, and its result once it has one. Kept as long as the call record is. */
export function taskOf(record: Pick<CallRecord, "callId" | "status" | "startedAt"> & Partial<CallRecord>, retentionDays: number) {
  const status = STATUS[record.status];
  const task = {
    taskId: record.callId,
    status,
    ...(statusMessage(record) ? { statusMessage: statusMessage(record) } : {}),
    createdAt: record.startedAt,
    lastUpdatedAt: record.finishedAt ?? record.decidedAt ?? record.startedAt,
    ttlMs: retentionDays * DAY_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  return status === "completed" ? { ...task, result: resultOf(record as CallRecord) } : task;
}

export const unknownTask = (taskId: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `There is no task "${taskId}" for this agent.`);
export const noInput = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `The task "${taskId}" asks for no input: it waits for an operator's decision.`);
export const notCancellable = (record: CallRecord) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `The task "${record.callId}" can no longer be cancelled: the call is ${record.status}.`);
