import { transitions } from "./call/lifecycle";
import { CallRecord } from "./call/schema";
import { uncontended } from "./contention";
import { applyTransition, forgetPendingArguments } from "./dynamo/calls";
import { backfillIndexes } from "./dynamo/backfill";
import { deleteItems, expiredItems, lapsedCallItems } from "./dynamo/cleanup";
import { createDb } from "./dynamo/client";
import type { Db } from "./dynamo/client";
import { eventTarget, storeOptions } from "./environment";

/** indexed: agents and calls stored before the listing indexes that were given them (once, on the first run after upgrading). */
export { backfillIndexes };

export type CleanupReport = { indexed: number; settled: number; deleted: number };

/** Settles calls waiting past their deadline through the call lifecycle: running ones time out, unanswered or unreported ones expire. */
async function settleLapsedCalls(db: Db, now: Date): Promise<number> {
  let settled = 0;
  for await (const items of lapsedCallItems(db, Math.floor(now.getTime() / 1000))) {
    for (const item of items) {
      const lapse = transitions.lapsed(CallRecord.parse(item.call), now);
      if (!lapse) continue;
      const written = await uncontended(db.contentionDeadlineMs, () => applyTransition(db, lapse, Number(item.expiresAt)));
      if (written.kind !== "ok") continue;
      settled++;
      if (lapse.from === "awaiting_confirmation" || lapse.from === "authorized") await forgetPendingArguments(db, lapse.to.callId);
    }
  }
  return settled;
}

async function deleteExpired(db: Db, now: Date): Promise<number> {
  if (db.expiresByTtl) return 0;
  let deleted = 0;
  for await (const items of expiredItems(db, Math.floor(now.getTime() / 1000))) {
    await deleteItems(db, items);
    deleted += items.length;
  }
  return deleted;
}

/**
 * Indexes what was stored before the listing indexes (until that is done once), settles calls stuck past their
 * deadline, then (where the store has no TTL, as DynamoDB Local) deletes what has expired.
 */
export async function cleanup(db: Db, now = new Date()): Promise<CleanupReport> {
  const indexed = await backfillIndexes(db);
  const settled = await settleLapsedCalls(db, now);
  const deleted = await deleteExpired(db, now);
  return { indexed, settled, deleted };
}

let store: Db | undefined;

/** The scheduled cleanup on the store SST links, with nothing else of toolgate loaded (the calls it settles are announced from the table's stream). */
export const cleanupLinkedStore = (now = new Date()) => cleanup((store ??= createDb(storeOptions())), now);
