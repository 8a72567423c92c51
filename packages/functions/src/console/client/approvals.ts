import { api, ApiError, failed, newestOnly, segment, withQuery } from "./api";
import { arrange, byId, code, consoleHref, element, fact, setMessage, timeElement } from "./dom";
import { argumentsBlock, deadlineLabel } from "./calls";
import type { CallRecord } from "./types";
import { queueCount } from "./queue-count";
import type { Queue } from "./queue-count";

const QUEUE = withQuery("calls", { status: "awaiting_confirmation", limit: 100 });
const REFRESH_MS = 5_000;


const queueRequest = newestOnly();

const count = queueCount("approval-count", QUEUE);
export const refreshCount = count.refresh;

function timeLeft(deadline: string | undefined) {
  if (!deadline) return "";
  const seconds = Math.round((Date.parse(deadline) - Date.now()) / 1000);
  if (Number.isNaN(seconds)) return "";
  if (seconds <= 0) return " (passed: the call expires unless answered now)";
  return seconds < 120 ? ` (in ${seconds} s)` : ` (in ${Math.round(seconds / 60)} min)`;
}

/** The approval's deadline, marked: it leaves the card once the call is decided. */
function deadlineFact(call: CallRecord) {
  const parts = fact(deadlineLabel(call.status), timeElement(call.deadline), timeLeft(call.deadline));
  for (const part of parts) part.dataset.deadline = "";
  return parts;
}

function approvalCard(call: CallRecord) {
  const titleId = "approval-" + call.callId;
  const approve = element("button", { type: "button", className: "button-primary", text: "Approve", "data-answer": "approve", "aria-describedby": titleId });
  const deny = element("button", { type: "button", text: "Deny", "data-answer": "deny", "aria-describedby": titleId });
  return element("li", { className: "approval", "data-call": call.callId }, [
    element("h2", { id: titleId, tabindex: -1 }, [code(call.tool)]),
    element("dl", { className: "facts" }, [
      ...fact("Agent", element("a", { href: consoleHref("/agents/" + encodeURIComponent(call.agentId)), text: call.agentName ?? call.agentId })),
      ...fact("Role", element("a", { href: consoleHref("/roles/" + encodeURIComponent(call.roleId)), text: call.roleName ?? call.roleId })),
      ...fact("Group", call.group ? code(call.group) : "—"),
      ...fact("Asked", timeElement(call.startedAt)),
      ...deadlineFact(call),
      ...fact("Call id", code(call.callId)),
    ]),
    element("h3", { text: "Arguments (secret values redacted)" }),
    ...argumentsBlock(call),
    element("p", { className: "message", role: "status", "data-result": "" }),
    element("div", { className: "actions" }, [approve, deny]),
  ]);
}

/** The queue's cards by callId: a card is made once and kept while its call waits or its answer is on the way. */
const cards = new Map<string, HTMLElement>();
/** Calls whose Approve or Deny request has not come back yet: their cards stay where they are, whatever a refresh says. */
const answering = new Set<string>();
const DECIDED_SHOWN = 10;

function showQueue(calls: CallRecord[]) {
  const listed = new Set(calls.map((call) => call.callId));
  for (const [callId] of cards) if (!listed.has(callId) && !answering.has(callId)) cards.delete(callId);
  const stillAnswering = Array.from(byId("approval-list").children as HTMLCollectionOf<HTMLElement>).filter((card) => !listed.has(card.dataset.call!) && answering.has(card.dataset.call!));
  const wanted = calls.map((call) => cards.get(call.callId) ?? cards.set(call.callId, approvalCard(call)).get(call.callId)!);
  arrange(byId("approval-list"), [...wanted, ...stillAnswering]);
}

export async function loadApprovals() {
  const status = byId("load-status");
  try {
    const queue = await queueRequest<Queue>("GET", QUEUE);
    count.show(queue);
    showQueue(queue.calls);
    byId("queue-updated").replaceChildren("Checked ", timeElement(new Date().toISOString()), ` · refreshes every ${REFRESH_MS / 1000} s`);
    setMessage(status, byId("approval-list").children.length ? "" : "No call is waiting for approval.");
  } catch (error) {
    failed(status, error);
  }
}

/** A card whose call was answered leaves the queue for the short list of calls just decided, with what became of it. */
function moveToDecided(card: HTMLElement) {
  cards.delete(card.dataset.call!);
  card.classList.add("answered");
  card.querySelector(".actions")?.remove();
  // The approval deadline no longer applies: an approved call waits for its tool or runtime until a deadline of its own (its record).
  for (const part of card.querySelectorAll("[data-deadline]")) part.remove();
  const decided = byId("decided-list");
  decided.prepend(card);
  while (decided.children.length > DECIDED_SHOWN) decided.lastElementChild!.remove();
  byId("decided").hidden = false;
  card.querySelector<HTMLElement>("h2")?.focus();
}

async function answer(card: HTMLElement, button: HTMLButtonElement) {
  const callId = card.dataset.call!;
  const decision = button.dataset.answer as "approve" | "deny";
  const result = card.querySelector<HTMLElement>("[data-result]")!;
  const buttons = card.querySelectorAll<HTMLButtonElement>("button[data-answer]");
  for (const each of buttons) each.disabled = true;
  setMessage(result, decision === "approve" ? "Approving…" : "Denying…");
  answering.add(callId);
  try {
    const call = await api<CallRecord>("POST", `calls/${segment(callId)}/${decision}`);
    setMessage(result, decision === "approve" ? `Approved: the call is now ${call.status.replace(/_/g, " ")}.` : "Denied: the agent is told the call was refused.");
    result.classList.add("message-ok");
    moveToDecided(card);
  } catch (error) {
    if (error instanceof ApiError && error.code === "no_longer_allowed") {
      setMessage(result, error.message, "error");
      for (const each of buttons) each.disabled = each.dataset.answer === "approve";
    } else if (error instanceof ApiError && error.status === 409) {
      setMessage(result, error.message, "error");
      moveToDecided(card);
    } else {
      for (const each of buttons) each.disabled = false;
      failed(result, error);
    }
  } finally {
    answering.delete(callId);
  }
  await loadApprovals();
}

export function wireApprovalsPage() {
  byId("approval-list").addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-answer]");
    const card = button?.closest<HTMLElement>("li.approval");
    if (button && card && !button.disabled) void answer(card, button);
  });
  byId("refresh-approvals").addEventListener("click", () => void loadApprovals());
  window.setInterval(() => {
    if (!document.hidden && !byId("page").hidden) void loadApprovals();
  }, REFRESH_MS);
}
