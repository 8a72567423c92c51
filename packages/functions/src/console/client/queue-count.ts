import { newestOnly } from "./api";
import { maybeById } from "./dom";
import type { CallRecord } from "./types";

export type Queue = { calls: CallRecord[]; nextCursor?: string };

/**
 * The count of an operator's queue (approvals, questions) beside its name in the navigation, on every page: `show`
 * sets it from a page of the queue, `refresh` asks for one (a failure is left to the queue's own page to report).
 */
export function queueCount(badgeId: string, queuePath: string) {
  const request = newestOnly();
  const show = (queue: Queue) => {
    const badge = maybeById(badgeId);
    if (!badge) return;
    const count = queue.calls.length;
    badge.textContent = count === 0 ? "" : queue.nextCursor ? `${count}+` : String(count);
    badge.hidden = count === 0;
    badge.setAttribute("aria-label", count === 0 ? "" : `${badge.textContent} waiting`);
  };
  const refresh = async () => {
    try {
      show(await request<Queue>("GET", queuePath));
    } catch {
      // The count is a hint: the queue's page reports a failure to load it.
    }
  };
  return { show, refresh };
}
