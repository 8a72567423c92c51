import { transitions } from "./call/lifecycle";
import { CallRecord } from "./call/schema";
import { uncontended } from "./contention";
import { applyTransition, forgetPendingArguments } from "./dynamo/calls";
import { backfillDepartments, backfillIndexes } from "./dynamo/backfill";
import { admittedAgents, deleteItems, expiredItems, lapsedCallItems, moveAdmittedWalk, readAdmittedWalk, waitingCallsMade } from "./dynamo/cleanup";
import type { Item } from "./dynamo/query";
import { createDb } from "./dynamo/client";
import type { Db } from "./dynamo/client";
import { eventTarget, storeOptions } from "./environment";

/**
 * What was stored before an index or a count existed, brought up to date (once, on the first run after upgrading):
 * indexed, agents and calls given their listing indexes; counted, active agents counted in their departments.
 */
export async function backfill(db: Db) {
  return { indexed: await backfillIndexes(db), counted: await backfillDepartments(db) };
}

export type CleanupReport = { indexed: number; counted: number; settled: number; deleted: number };

/** Settles a call item found waiting past its deadline through the call lifecycle; whether this cleanup settled it. */
async function settleLapsed(db: Db, item: Item, now: Date): Promise<boolean> {
  const lapse = transitions.lapsed(CallRecord.parse(item.call), now);
  if (!lapse) return false;
  const written = await uncontended(db.contentionDeadlineMs, () => applyTransition(db, lapse, Number(item.expiresAt)));
  if (written.kind !== "ok") return false;
  if (lapse.from !== "running") await forgetPendingArguments(db, lapse.to.callId);
  return true;
}

/** Settles the indexed calls waiting past their deadline: those an admin answered or has to, and any from earlier versions. */
async function settleIndexedCalls(db: Db, now: Date): Promise<number> {
  let settled = 0;
  for await (const items of lapsedCallItems(db, Math.floor(now.getTime() / 1000))) for (const item of items) if (await settleLapsed(db, item, now)) settled++;
  return settled;
}

/** How far behind now the walk stays, for calls whose start is written a little after their id was made, on another clock. */
export const WALK_MARGIN_MS = 60_000;
/** Where the first walk starts: calls admitted before it were indexed by earlier versions, or found by a walk already. */
const FIRST_WALK_MS = 24 * 3_600_000;

/**
 * Settles the calls admitted straight to running or to their runtime (not indexed) that passed their deadline: the
 * calls made since the last walk by every agent admitted since, read from each agent's own partition. The mark moves
 * on to where nothing before it can still be waiting: not past a call whose deadline is still ahead.
 */
async function settleAdmittedCalls(db: Db, now: Date): Promise<number> {
  const from = await readAdmittedWalk(db);
  const start = from ?? now.getTime() - FIRST_WALK_MS;
  let through = now.getTime() - WALK_MARGIN_MS;
  if (through <= start) return 0;
  let settled = 0;
  for await (const agents of admittedAgents(db, start))
    for (const agentId of agents)
      for await (const items of waitingCallsMade(db, agentId, start, through))
        for (const item of items) {
          const call = CallRecord.parse(item.call);
          if (call.deadline && Date.parse(call.deadline) > now.getTime()) through = Math.min(through, Date.parse(call.startedAt));
          else if (await settleLapsed(db, item, now)) settled++;
        }
  if (through > start) await moveAdmittedWalk(db, from, through);
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
 * Brings what was stored before the listing indexes and department counts up to date (until that is done once),
 * settles calls stuck past their deadline, then (where the store has no TTL, as DynamoDB Local) deletes what has expired.
 */
export async function cleanup(db: Db, now = new Date()): Promise<CleanupReport> {
  const { indexed, counted } = await backfill(db);
  const settled = (await settleIndexedCalls(db, now)) + (await settleAdmittedCalls(db, now));
  const deleted = await deleteExpired(db, now);
  return { indexed, counted, settled, deleted };
}

let store: Db | undefined;

/** The scheduled cleanup on the store SST links, with nothing else of toolgate loaded (the calls it settles are announced from the table's stream). */
export const cleanupLinkedStore = (now = new Date()) => cleanup((store ??= createDb(storeOptions())), now);
