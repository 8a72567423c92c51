import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { CallRecord } from "../call/schema";
import type { Transition } from "../call/schema";
import type { Db } from "./client";
import { AWAITING_PREFIX, Keys, RUNNING_PREFIX, runningIndex, shardsOf } from "./keys";
import { mergedPage } from "./merged-page";
import type { Source } from "./merged-page";
import { queryPartitionPage } from "./query";
import type { PartitionFilter } from "./query";
import { attempt } from "./write";

const PENDING = new Set<CallRecord["status"]>(["running", "awaiting_confirmation", "authorized"]);

/** Rounded up, so cleanup never settles a call before its deadline. */
const epochSeconds = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

/**
 * A call an admin answered, or still has to (the approval queue's shards), is found by cleanup through its deadline,
 * and leaves that index once settled. A call admitted straight to running or to its runtime is not indexed: cleanup
 * finds it by walking the calls of the agents admitted since it last looked (`admittedAgents`), so a call pays no
 * index write.
 */
export const waitingIndexFor = (record: CallRecord, pk: string) => {
  if (!PENDING.has(record.status) || !record.deadline) return undefined;
  if (record.status === "awaiting_confirmation") return runningIndex(pk, epochSeconds(record.deadline), AWAITING_PREFIX);
  return record.decidedAt ? runningIndex(pk, epochSeconds(record.deadline), RUNNING_PREFIX) : undefined;
};

export const callItem = (record: CallRecord, expiresAt: number) => {
  const key = Keys.call(record.agentId, record.callId);
  return { ...key, ...waitingIndexFor(record, key.pk), expiresAt, call: record };
};

export type TransitionOutcome = { kind: "ok" } | { kind: "moved"; current: CallRecord | undefined } | { kind: "contention" };

/** Writes a transition if the record is still at its `from` status (or, from null, does not exist yet). */
export async function applyTransition(db: Db, { from, to }: Transition, expiresAt: number): Promise<TransitionOutcome> {
  const key = Keys.call(to.agentId, to.callId);
  const index = waitingIndexFor(to, key.pk);
  const outcome = await attempt(() =>
    from === null
      ? db.doc.send(new PutCommand({ TableName: db.table, Item: callItem(to, expiresAt), ConditionExpression: "attribute_not_exists(pk)" }))
      : db.doc.send(
          new UpdateCommand({
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
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        ),
  );
  if (outcome.kind !== "refused") return outcome;
  const current = outcome.current[0]?.call;
  return { kind: "moved", current: current === undefined ? undefined : CallRecord.parse(current) };
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

/** Calls awaiting an admin's answer across every agent, oldest first (by deadline, which is their start plus one confirmation timeout). */
export async function listAwaitingCalls(db: Db, limit: number, cursor: string | undefined) {
  const sources = shardsOf(AWAITING_PREFIX).map((pk): Source => ({ index: "gsi1", pk }));
  const page = await mergedPage(db, sources, "ascending", limit, cursor);
  if (page === "invalid_cursor") return page;
  const calls = page.items.map((item) => CallRecord.parse(item.call));
  return page.nextCursor ? { calls, nextCursor: page.nextCursor } : { calls };
}
