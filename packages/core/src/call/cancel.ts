import { uncontended } from "../contention";
import { callsWithKeptArguments, endCallsTogether, waitingCallsOf } from "../dynamo/calls";
import type { CallEnding, StoredCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { transitions } from "./lifecycle";

/** What a terminated agent may leave waiting: calls awaiting an approval, and calls its runtime was to run and report. */
const CANCELLABLE = ["awaiting_confirmation", "authorized"] as const;

/** How many calls one transaction ends (each is its record and, if kept, its sealed arguments: at most 50 of 100 items). */
const TOGETHER = 25;

async function endPage(db: Db, page: StoredCall[], now: Date): Promise<number> {
  const kept = await callsWithKeptArguments(db, page.map(({ record }) => record.callId));
  const endings = page.flatMap(({ record, expiresAt }): CallEnding[] => {
    const cancelled = transitions.cancelled(record, now);
    return cancelled ? [{ transition: { ...cancelled, from: record.status }, expiresAt, keptArguments: kept.has(record.callId) }] : [];
  });
  const chunks = Array.from({ length: Math.ceil(endings.length / TOGETHER) }, (_, i) => endings.slice(i * TOGETHER, (i + 1) * TOGETHER));
  const ended = await Promise.all(chunks.map((chunk) => uncontended(db.contentionDeadlineMs, () => endCallsTogether(db, chunk))));
  return ended.reduce((sum, ids) => sum + ids.length, 0);
}

/**
 * Ends the calls a terminated agent left waiting (status cancelled, error agent_terminated), page by page and many to a
 * write, each conditional on the status it was read in; they leave the approval queue, their kept arguments are dropped,
 * and call.settled is announced for each from the table's stream. Returns how many it ended.
 */
export async function cancelWaitingCalls(db: Db, agentId: string, now: Date): Promise<number> {
  let ended = 0;
  for await (const page of waitingCallsOf(db, agentId, CANCELLABLE)) ended += await endPage(db, page, now);
  return ended;
}
