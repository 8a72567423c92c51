import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { CallRecord } from "../call/schema";
import type { Transition } from "../call/schema";
import { answerTokenHeld } from "./answer-tokens";
import { getItems, itemAt } from "./batch";
import type { Db } from "./client";
import { AWAITING_PREFIX, Keys, QUESTIONS_PREFIX, RUNNING_PREFIX, runningIndex, shardOf, shardsOf } from "./keys";
import { mergedPage } from "./merged-page";
import type { Source } from "./merged-page";
import { queryPages, queryPartitionPage } from "./query";
import type { PartitionFilter } from "./query";
import { attempt } from "./write";

const PENDING = new Set<CallRecord["status"]>(["running", "awaiting_confirmation", "awaiting_answer", "authorized"]);

/** The queues an operator answers, each in shards of its own: approvals and questions. */
export const QUEUE_PREFIXES = { awaiting_confirmation: AWAITING_PREFIX, awaiting_answer: QUESTIONS_PREFIX } as const;
export type QueueStatus = keyof typeof QUEUE_PREFIXES;

/**
 * A call an admin answered, or still has to (the approval queue's shards), is found by cleanup through its deadline,
 * and leaves that index once settled. A call admitted straight to running or to its runtime is not indexed: cleanup
 * finds it by walking the calls of the agents admitted since it last looked (`admittedAgents`), so a call pays no
 * index write.
 */
export const waitingIndexFor = (record: CallRecord, pk: string) => {
  if (!PENDING.has(record.status) || !record.deadline) return undefined;
  // A question put to the agent's own user is no operator's to answer: it waits among the running calls, for its deadline alone.
  if (record.status === "awaiting_answer" && record.askedOf === "user") return runningIndex(pk, record.deadline, record.callId, RUNNING_PREFIX);
  if (record.status === "awaiting_confirmation" || record.status === "awaiting_answer") return runningIndex(pk, record.deadline, record.callId, QUEUE_PREFIXES[record.status]);
  return record.decidedAt ? runningIndex(pk, record.deadline, record.callId, RUNNING_PREFIX) : undefined;
};

export const callItem = (record: CallRecord, expiresAt: number) => {
  const key = Keys.call(record.agentId, record.callId);
  return { ...key, ...waitingIndexFor(record, key.pk), expiresAt, call: record };
};

export type TransitionOutcome = { kind: "ok" } | { kind: "moved"; current: CallRecord | undefined } | { kind: "contention" };

/** The update that moves a stored call record to `to`, if it is still at `from`, in or out of the index of waiting calls. */
function transitionUpdate(db: Db, from: CallRecord["status"], to: CallRecord, expiresAt: number) {
  const key = Keys.call(to.agentId, to.callId);
  const index = waitingIndexFor(to, key.pk);
  return {
    TableName: db.table,
    Key: key,
    UpdateExpression: index
      ? "SET #call = :call, expiresAt = :expiresAt, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk"
      : "SET #call = :call, expiresAt = :expiresAt REMOVE gsi1pk, gsi1sk",
    ConditionExpression: "#call.#status = :from",
    ExpressionAttributeNames: { "#call": "call", "#status": "status" },
    ExpressionAttributeValues: {
      ":call": to,
      ":from": from,
      ":expiresAt": expiresAt,
      ...(index ? { ":gsi1pk": index.gsi1pk, ":gsi1sk": index.gsi1sk } : {}),
    },
    ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
  };
}

const movedTo = (current: Record<string, unknown> | undefined): TransitionOutcome => {
  const call = current?.call;
  return { kind: "moved", current: call === undefined ? undefined : CallRecord.parse(call) };
};

/**
 * Marks a running call as going on after its `round`-th pause for the agent's client's input (rounds count from 0):
 * "moved" when that pause was answered already, or the call is no longer running. Two answers sent at once cannot
 * both take the call on.
 */
export async function claimInputRound(db: Db, agentId: string, callId: string, round: number): Promise<"ok" | "moved" | "contention"> {
  const outcome = await attempt(() =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: Keys.call(agentId, callId),
        UpdateExpression: "SET #call.#round = :next",
        ConditionExpression: `#call.#status = :running AND ${round === 0 ? "attribute_not_exists(#call.#round)" : "#call.#round = :round"}`,
        ExpressionAttributeNames: { "#call": "call", "#status": "status", "#round": "inputRound" },
        ExpressionAttributeValues: { ":running": "running", ":next": round + 1, ...(round === 0 ? {} : { ":round": round }) },
      }),
    ),
  );
  return outcome.kind === "refused" ? "moved" : outcome.kind;
}

/** Writes a transition if the record is still at its `from` status (or, from null, does not exist yet). */
export async function applyTransition(db: Db, { from, to }: Transition, expiresAt: number): Promise<TransitionOutcome> {
  const outcome = await attempt(() =>
    from === null
      ? db.doc.send(new PutCommand({ TableName: db.table, Item: callItem(to, expiresAt), ConditionExpression: "attribute_not_exists(pk)" }))
      : db.doc.send(new UpdateCommand(transitionUpdate(db, from, to, expiresAt))),
  );
  return outcome.kind === "refused" ? movedTo(outcome.current[0]) : outcome;
}

/** Writes a transition of a waiting call in one transaction with a check of another item: "unchecked" when only the check failed. */
async function applyWithCheck(db: Db, { from, to }: Transition & { from: CallRecord["status"] }, expiresAt: number, check: Record<string, unknown>) {
  const outcome = await attempt(() => db.doc.send(new TransactWriteCommand({ TransactItems: [{ Update: transitionUpdate(db, from, to, expiresAt) }, check] })));
  if (outcome.kind !== "refused") return outcome;
  return outcome.failed[0] ? movedTo(outcome.current[0]) : ("unchecked" as const);
}

/**
 * Writes a transition of a waiting call only while its agent is active, in one transaction: an approval and the
 * agent's termination cannot both win (termination ends the agent's waiting calls after its own write).
 */
export async function applyWhileAgentActive(db: Db, transition: Transition & { from: CallRecord["status"] }, expiresAt: number): Promise<TransitionOutcome | { kind: "agent_inactive" }> {
  const agentActive = {
    ConditionCheck: {
      TableName: db.table,
      Key: Keys.agent(transition.to.agentId),
      ConditionExpression: "#agent.#status = :active",
      ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
      ExpressionAttributeValues: { ":active": "active" },
    },
  };
  const outcome = await applyWithCheck(db, transition, expiresAt, agentActive);
  return outcome === "unchecked" ? { kind: "agent_inactive" } : outcome;
}

/**
 * Writes an answer given with an answering token only while that token exists, in one transaction: once its
 * revocation is written, no answer given with it lands, not even one that was already on its way.
 */
export async function applyWhileAnswerTokenHeld(db: Db, transition: Transition & { from: CallRecord["status"] }, expiresAt: number, answerTokenId: string): Promise<TransitionOutcome | { kind: "token_revoked" }> {
  const outcome = await applyWithCheck(db, transition, expiresAt, answerTokenHeld(db, answerTokenId));
  return outcome === "unchecked" ? { kind: "token_revoked" } : outcome;
}

/** A waiting call to end: its transition, its expiry, and whether arguments are kept beside it (dropped with it). */
export type CallEnding = { transition: Transition & { from: CallRecord["status"] }; expiresAt: number; keptArguments: boolean };

const forgetArguments = (db: Db, callId: string) => ({
  TableName: db.table,
  Key: Keys.callRef(callId),
  UpdateExpression: "REMOVE #arguments, sealed",
  ConditionExpression: "attribute_exists(pk)",
  ExpressionAttributeNames: { "#arguments": "arguments" },
});

/**
 * Ends several waiting calls in one transaction, each still conditional on the status it was read in, dropping the
 * arguments kept beside them. When some moved meanwhile (an approval, a result, cleanup got there first) they are left
 * out and the rest written again. Answers the ids of the calls it ended.
 */
export async function endCallsTogether(db: Db, endings: CallEnding[]): Promise<string[] | "contention"> {
  let pending = endings;
  while (pending.length) {
    const writes = pending.flatMap((ending, index) => [
      { index, forgets: false, item: { Update: transitionUpdate(db, ending.transition.from, ending.transition.to, ending.expiresAt) } },
      ...(ending.keptArguments ? [{ index, forgets: true, item: { Update: forgetArguments(db, ending.transition.to.callId) } }] : []),
    ]);
    const outcome = await attempt(() => db.doc.send(new TransactWriteCommand({ TransactItems: writes.map((write) => write.item) })));
    if (outcome.kind === "ok") return pending.map((ending) => ending.transition.to.callId);
    if (outcome.kind === "contention") return "contention";
    const moved = new Set(writes.filter((write, position) => outcome.failed[position] && !write.forgets).map((write) => write.index));
    const nothingKept = new Set(writes.filter((write, position) => outcome.failed[position] && write.forgets).map((write) => write.index));
    if (moved.size === 0 && nothingKept.size === 0) return "contention";
    pending = pending.flatMap((ending, index) => (moved.has(index) ? [] : [nothingKept.has(index) ? { ...ending, keptArguments: false } : ending]));
  }
  return [];
}

/** Which of these calls have their real arguments kept beside them (sealed, or from earlier versions as JSON text). */
export async function callsWithKeptArguments(db: Db, callIds: string[]): Promise<Set<string>> {
  const items = await getItems(db, callIds.map(Keys.callRef), { expression: "sealed, #arguments", names: { "#arguments": "arguments" } });
  return new Set(callIds.filter((callId) => {
    const item = itemAt(items, Keys.callRef(callId));
    return item?.sealed !== undefined || item?.arguments !== undefined;
  }));
}

/** Records a call whatever was there before under its id: an admission later refused replaces its own start. */
export async function putCall(db: Db, record: CallRecord, expiresAt: number): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: callItem(record, expiresAt) }));
}

export async function getCall(db: Db, agentId: string, callId: string): Promise<CallRecord | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.call(agentId, callId), ConsistentRead: true }));
  return Item ? CallRecord.parse(Item.call) : undefined;
}

export type CallFilter = { status?: CallRecord["status"] | undefined; tool?: string | undefined };

/** The status and tool a page of an agent's calls must have, as a filter on its partition's query. */
function callFilter({ status, tool }: CallFilter): PartitionFilter | undefined {
  const conditions = [...(status !== undefined ? ["#call.#status = :status"] : []), ...(tool !== undefined ? ["#call.#tool = :tool"] : [])];
  if (conditions.length === 0) return undefined;
  return {
    expression: conditions.join(" AND "),
    names: { "#call": "call", ...(status !== undefined ? { "#status": "status" } : {}), ...(tool !== undefined ? { "#tool": "tool" } : {}) },
    values: { ...(status !== undefined ? { ":status": status } : {}), ...(tool !== undefined ? { ":tool": tool } : {}) },
  };
}

/**
 * An agent's calls newest first, from its own partition, filtered by status and tool there. Calls are not indexed by
 * status or tool: every call would pay those index writes (about five write units), while filters are an operator's
 * occasional read.
 */
export async function listCalls(db: Db, agentId: string, filter: CallFilter, limit: number, cursor: string | undefined) {
  const partition = { pk: Keys.call(agentId, "").pk, skPrefix: "CALL#", newestFirst: true };
  const page = await queryPartitionPage(db, partition, limit, cursor, callFilter(filter));
  if (page === "invalid_cursor") return page;
  const calls = page.items.map((item) => CallRecord.parse(item.call));
  return page.nextCursor ? { calls, nextCursor: page.nextCursor } : { calls };
}

/** What is kept beside a waiting call: its agent, and its real arguments sealed (or, from earlier versions, as JSON text). */
export type PendingCall = { agentId: string; sealed?: string; legacyArguments?: Record<string, unknown> };

export const pendingCallItem = (db: Db, callId: string, agentId: string, sealed: string, expiresAt: number) => {
  const key = Keys.callRef(callId);
  return { TableName: db.table, Item: { ...key, agentId, sealed, expiresAt } };
};

export async function keepPendingCall(db: Db, callId: string, agentId: string, sealed: string, expiresAt: number): Promise<void> {
  await db.doc.send(new PutCommand(pendingCallItem(db, callId, agentId, sealed, expiresAt)));
}

export async function getPendingCall(db: Db, callId: string): Promise<PendingCall | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.callRef(callId), ConsistentRead: true }));
  if (!Item) return undefined;
  return {
    agentId: String(Item.agentId),
    ...(typeof Item.sealed === "string" ? { sealed: Item.sealed } : {}),
    ...(typeof Item.arguments === "string" ? { legacyArguments: JSON.parse(Item.arguments) as Record<string, unknown> } : {}),
  };
}

/** Drops the arguments kept for a waiting call once it is answered; the reference to the agent stays until it expires. */
export async function forgetPendingArguments(db: Db, callId: string): Promise<void> {
  await attempt(() =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: Keys.callRef(callId),
        UpdateExpression: "REMOVE #arguments, sealed",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#arguments": "arguments" },
      }),
    ),
  );
}

/** Calls awaiting an operator (an approval, or an answer) across every agent, oldest first (by deadline, which is their start plus one timeout). */
export async function listAwaitingCalls(db: Db, status: QueueStatus, limit: number, cursor: string | undefined) {
  const sources = shardsOf(QUEUE_PREFIXES[status]).map((pk): Source => ({ index: "gsi1", pk }));
  const page = await mergedPage(db, sources, "ascending", limit, cursor);
  if (page === "invalid_cursor") return page;
  const calls = page.items.map((item) => CallRecord.parse(item.call));
  return page.nextCursor ? { calls, nextCursor: page.nextCursor } : { calls };
}

export type StoredCall = { record: CallRecord; expiresAt: number };

const WAITING_PAGE = 100;

/**
 * Pages of an agent's calls in the given waiting statuses. Every waiting call of an agent is indexed in the same shard
 * of the waiting-call index (the shard follows its partition), so this reads that shard of the approval queue and of
 * the other waiting calls: never the agent's whole history, never the table.
 */
export async function* waitingCallsOf(db: Db, agentId: string, statuses: readonly CallRecord["status"][]): AsyncGenerator<StoredCall[]> {
  const pk = Keys.call(agentId, "").pk;
  const values = Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status]));
  for (const prefix of [AWAITING_PREFIX, QUESTIONS_PREFIX, RUNNING_PREFIX]) {
    const pages = queryPages(
      db,
      {
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :shard",
        // On the record's agentId, an ordinary attribute: a filter expression may not name key attributes.
        FilterExpression: `#call.agentId = :agentId AND #call.#status IN (${Object.keys(values).join(", ")})`,
        ExpressionAttributeNames: { "#call": "call", "#status": "status" },
        ExpressionAttributeValues: { ":shard": shardOf(pk, prefix), ":agentId": agentId, ...values },
      },
      WAITING_PAGE,
    );
    for await (const items of pages) if (items.length) yield items.map((item) => ({ record: CallRecord.parse(item.call), expiresAt: Number(item.expiresAt) }));
  }
}
