import { api, ApiError, failed, newestOnly, segment, withQuery } from "./api";
import { byId, code, consoleHref, element, fact, maybeById, setMessage, timeElement } from "./dom";
import { argumentsBlock, deadlineLabel } from "./calls";
import type { CallRecord } from "./types";

const QUEUE = withQuery("calls", { status: "awaiting_confirmation", limit: 100 });
const REFRESH_MS = 5_000;

type Queue = { calls: CallRecord[]; nextCursor?: string };

const countRequest = newestOnly();
const queueRequest = newestOnly();

/** The count beside "Approvals" in the navigation, on every page. */
export function showCount(queue: Queue) {
  const badge = maybeById("approval-count");
  if (!badge) return;
  const count = queue.calls.length;
  badge.textContent = count === 0 ? "" : queue.nextCursor ? `${count}+` : String(count);
  badge.hidden = count === 0;
  badge.setAttribute("aria-label", count === 0 ? "" : `${badge.textContent} waiting`);
}

export async function refreshCount() {
  try {
    showCount(await countRequest<Queue>("GET", QUEUE));
  } catch {
    // The count is a hint: the approvals page reports a failure to load the queue.
  }
}

function timeLeft(deadline: string | undefined) {
  if (!deadline) return "";
  const seconds = Math.round((Date.parse(deadline) - Date.now()) / 1000);
  if (Number.isNaN(seconds)) return "";
  if (seconds <= 0) return " (passed: the call expires unless answered now)";
  return seconds < 120 ? ` (in ${seconds} s)` : ` (in ${Math.round(seconds / 60)} min)`;
}

function approvalCard(call: CallRecord) {
  const titleId = "approval-" + call.callId;
  const approve = element("button", { type: "button", className: "button-primary", text: "Approve", "data-answer": "approve", "aria-describedby": titleId });
  const deny = element("button", { type: "button", text: "Deny", "data-answer": "deny", "aria-describedby": titleId });
  return element("li", { className: "approval", "data-call": call.callId }, [
    element("h2", { id: titleId }, [code(call.tool)]),
    element("dl", { className: "facts" }, [
      ...fact("Agent", element("a", { href: consoleHref("/agents/" + encodeURIComponent(call.agentId)), text: call.agentName ?? call.agentId })),
      ...fact("Role", element("a", { href: consoleHref("/roles/" + encodeURIComponent(call.roleId)), text: call.roleName ?? call.roleId })),
      ...fact("Group", call.group ? code(call.group) : "—"),
      ...fact("Asked", timeElement(call.startedAt)),
      ...fact(deadlineLabel(call.status), timeElement(call.deadline), timeLeft(call.deadline)),
      ...fact("Call id", code(call.callId)),
    ]),
    element("h3", { text: "Arguments (secret values redacted)" }),
    ...argumentsBlock(call),
    element("p", { className: "message", role: "status", "data-result": "" }),
    element("div", { className: "actions" }, [approve, deny]),
  ]);
}

const shownIds = () => Array.from(document.querySelectorAll<HTMLElement>("#approval-list > li"), (item) => item.dataset.call);

export async function loadApprovals() {
  const status = byId("load-status");
  try {
    const queue = await queueRequest<Queue>("GET", QUEUE);
    showCount(queue);
    const ids = queue.calls.map((call) => call.callId);
    const shown = shownIds();
    const answered = new Set(Array.from(document.querySelectorAll<HTMLElement>("#approval-list > li.answered"), (item) => item.dataset.call));
    // Keep the list as it is while nothing changed, so focus and a message just shown stay where they are.
    if (ids.length !== shown.length || ids.some((id, index) => id !== shown[index])) {
      const kept = new Map(Array.from(document.querySelectorAll<HTMLElement>("#approval-list > li.answered"), (item) => [item.dataset.call, item]));
      const fresh = queue.calls.map((call) => kept.get(call.callId) ?? approvalCard(call));
      const stillShown = [...answered].filter((id) => !ids.includes(id!)).map((id) => kept.get(id)!);
      byId("approval-list").replaceChildren(...fresh, ...stillShown);
    }
    byId("queue-updated").replaceChildren("Checked ", timeElement(new Date().toISOString()), ` · refreshes every ${REFRESH_MS / 1000} s`);
    setMessage(status, ids.length ? "" : "No call is waiting for approval.");
  } catch (error) {
    failed(status, error);
  }
}

async function answer(item: HTMLElement, button: HTMLButtonElement) {
  const callId = item.dataset.call!;
  const decision = button.dataset.answer as "approve" | "deny";
  const result = item.querySelector<HTMLElement>("[data-result]")!;
  const buttons = item.querySelectorAll<HTMLButtonElement>("button[data-answer]");
  for (const each of buttons) each.disabled = true;
  setMessage(result, decision === "approve" ? "Approving…" : "Denying…");
  try {
    const call = await api<CallRecord>("POST", `calls/${segment(callId)}/${decision}`);
    item.classList.add("answered");
    setMessage(result, decision === "approve" ? `Approved: the call is now ${call.status.replace(/_/g, " ")}.` : "Denied: the agent is told the call was refused.");
    result.classList.add("message-ok");
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      item.classList.add("answered");
      setMessage(result, error.message, "error");
    } else {
      for (const each of buttons) each.disabled = false;
      failed(result, error);
    }
  }
  await loadApprovals();
}

export function wireApprovalsPage() {
  byId("approval-list").addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-answer]");
    const item = button?.closest<HTMLElement>("li.approval");
    if (button && item && !button.disabled) void answer(item, button);
  });
  byId("refresh-approvals").addEventListener("click", () => void loadApprovals());
  window.setInterval(() => {
    if (!document.hidden && !byId("page").hidden) void loadApprovals();
  }, REFRESH_MS);
}
