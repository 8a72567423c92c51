import { uncontended } from "../contention";
import { callsWithKeptArguments, endCallsTogether, waitingCallsOf } from "../dynamo/calls";
import { waitingCallsMade } from "../dynamo/cleanup";
import type { CallEnding, StoredCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { MAX_TOOL_TIMEOUT_MS } from "../policy/schema";
import { CallRecord } from "./schema";
import { transitions } from "./lifecycle";

/** What a terminated agent may leave waiting: calls awaiting an approval or an answer, and calls its runtime was to run and report. */
const CANCELLABLE = ["awaiting_confirmation", "awaiting_answer", "authorized"] as const;

/** How many calls one transaction ends (each is its record and, if kept, its sealed arguments: at most 50 of 100 items). */
const TOGETHER = 25;

async function endPage(db: Db, page: StoredCall[], now: Date): Promise<number> {
  const kept = await callsWithKeptArguments(db, page.map(({ record }) => record.callId));
  const endings = page.flatMap(({ record, expiresAt }): CallEnding[] => {
    const cancelled = transitions.cancelled(record, now);
    return cancelled ? [{ transition: { ...cancelled, from: record.status }, expiresAt, keptArguments: kept.has(record.callId) }] : [];
  });
  // One transaction at a time: they write the same agent's partition, and a burst of large transactions on a loaded
  // store (DynamoDB Local on a busy machine took over 2 s each for four at once) times out where one after another does not.
  let ended = 0;
  for (let start = 0; start < endings.length; start += TOGETHER)
    ended += (await uncontended(db.contentionDeadlineMs, () => endCallsTogether(db, endings.slice(start, start + TOGETHER)))).length;
  return ended;
}

/**
 * Ends the calls a terminated agent left waiting (status cancelled, error agent_terminated), page by page and many to a
 * write, each conditional on the status it was read in; they leave the approval queue, their kept arguments are dropped,
 * and call.settled is announced for each from the table's stream. Returns how many it ended.
 */
export async function cancelWaitingCalls(db: Db, agentId: string, now: Date, resultWaitMs: number): Promise<number> {
  let ended = 0;
  for await (const page of waitingCallsOf(db, agentId, CANCELLABLE)) ended += await endPage(db, page, now);
  for await (const page of unindexedResultCalls(db, agentId, now, resultWaitMs)) ended += await endPage(db, page, now);
  return ended;
}

/** How far ahead of this clock another process's call ids may be, and behind it their start written. */
const CLOCK_MARGIN_MS = 60_000;

/**
 * Calls admitted straight to the runtime are in no index (approved ones are): they are among the agent's calls made
 * within the longest a result may be waited for, read from its own partition.
 */
async function* unindexedResultCalls(db: Db, agentId: string, now: Date, resultWaitMs: number): AsyncGenerator<StoredCall[]> {
  const since = now.getTime() - Math.max(resultWaitMs, MAX_TOOL_TIMEOUT_MS) - CLOCK_MARGIN_MS;
  for await (const items of waitingCallsMade(db, agentId, since, now.getTime() + CLOCK_MARGIN_MS)) {
    const page = items
      .map((item) => ({ record: CallRecord.parse(item.call), expiresAt: Number(item.expiresAt) }))
      .filter(({ record }) => record.status === "authorized" && !record.decidedAt);
    if (page.length) yield page;
  }
}
