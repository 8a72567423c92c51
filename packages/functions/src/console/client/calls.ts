import { badge, code, element, fact, jsonText, timeElement } from "./dom";
import type { Child } from "./dom";
import type { CallRecord, CallStatus } from "./types";

const STATUS_KINDS: Partial<Record<CallStatus, "ok" | "warn" | "danger">> = {
  completed: "ok",
  awaiting_confirmation: "warn",
  awaiting_answer: "warn",
  error: "danger",
  timed_out: "danger",
  denied: "danger",
  refused: "danger",
  expired: "warn",
  cancelled: "warn",
};

export const STATUS_TEXT: Record<CallStatus, string> = {
  awaiting_confirmation: "awaiting approval",
  awaiting_answer: "awaiting an answer",
  authorized: "authorized",
  running: "running",
  completed: "completed",
  error: "error",
  timed_out: "timed out",
  denied: "denied",
  expired: "expired",
  refused: "refused",
  cancelled: "cancelled (agent terminated)",
};

/** What a waiting call's one deadline is for: an operator's answer, its tool's run, or its runtime's result. */
const DEADLINE_LABELS: Partial<Record<CallStatus, string>> = {
  awaiting_confirmation: "Approval deadline",
  awaiting_answer: "Answer deadline",
  running: "Run deadline",
  authorized: "Result deadline",
};

export const deadlineLabel = (status: CallStatus) => DEADLINE_LABELS[status] ?? "Deadline";

export const callStatusBadge = (status: CallStatus) => badge(STATUS_TEXT[status] ?? status, STATUS_KINDS[status]);

/** Arguments as toolgate stored them: already redacted where a schema or name marks a value as secret. */
export const argumentsBlock = (call: CallRecord) => [
  element("pre", { className: "json", text: jsonText(call.arguments) || "{}" }),
  call.argumentsTruncated ? element("p", { className: "hint", text: "The arguments were long and are stored truncated." }) : null,
];

const duration = (call: CallRecord) => (call.durationMs === undefined ? null : `${call.durationMs.toLocaleString("en")} ms`);

/** A call of an agent's history: a summary line that opens to its record. */
export function callItem(call: CallRecord) {
  const facts: Child[] = [
    ...fact("Call id", code(call.callId)),
    ...fact("Status", callStatusBadge(call.status)),
    ...fact("Group", call.group ? code(call.group) : "—"),
    ...fact("Started", timeElement(call.startedAt)),
  ];
  if (call.deadline) facts.push(...fact(deadlineLabel(call.status), timeElement(call.deadline)));
  if (call.decidedAt) facts.push(...fact(call.deniedBy ? "Denied" : "Approved", timeElement(call.decidedAt), ` by ${call.deniedBy ?? call.approvedBy ?? "—"}`));
  if (call.answeredBy) facts.push(...fact("Answered by", call.answeredByName ? `${call.answeredByName} (answering token ${call.answeredBy})` : call.answeredBy));
  if (call.finishedAt) facts.push(...fact("Finished", timeElement(call.finishedAt)));
  const took = duration(call);
  if (took) facts.push(...fact("Duration", took));
  if (call.error) facts.push(...fact("Error", code(call.error.code), " " + call.error.message));
  return element("li", { className: "call", "data-call": call.callId }, [
    element("details", {}, [
      element("summary", {}, [code(call.tool), " ", callStatusBadge(call.status), " ", timeElement(call.startedAt), took ? ` · ${took}` : null]),
      element("dl", { className: "facts" }, facts),
      element("h3", { text: "Arguments" }),
      ...argumentsBlock(call),
      call.result ? element("h3", { text: `Result (${call.result.type})` }) : null,
      call.result ? element("pre", { className: "json", text: call.result.content }) : null,
      call.result?.truncated ? element("p", { className: "hint", text: "The result was long: this is its start, as stored." }) : null,
    ]),
  ]);
}
