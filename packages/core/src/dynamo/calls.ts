import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { decodeCursor, encodeCursor } from "./cursor";
import { CallRecord } from "../call/schema";
import type { Db } from "./client";
import { whenCondition } from "./errors";
import { expiryIndex, Keys, runningIndex } from "./keys";

/** Rounded up, so cleanup never settles a call before its deadline. */
const epochSeconds = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

type Timing = { expiresAt: number };

/** Statuses that wait on something (the tool, an admin, the agent's runtime) until a deadline cleanup enforces. */
export const PENDING_STATUSES = ["running", "awaiting_confirmation", "authorized"] as const;

const isPending = (status: CallRecord["status"]) => (PENDING_STATUSES as readonly string[]).includes(status);

function indexFor(record: CallRecord, pk: string, timing: Timing) {
  if (isPending(record.status) && record.deadline) return runningIndex(pk, epochSeconds(record.deadline));
  return expiryIndex(pk, timing.expiresAt);
}

export function callItem(record: CallRecord, expiresAt: number) {
  const key = Keys.call(record.agentId, record.callId);
  return { ...key, ...indexFor(record, key.pk, { expiresAt }), expiresAt, call: record };
}

export async function putCall(db: Db, record: CallRecord, timing: Timing): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: callItem(record, timing.expiresAt) }));
}

/** Records a call's outcome if it is still `fromStatus`; returns false when something else (cleanup) settled it first. */
export async function settleCall(db: Db, record: CallRecord, fromStatus: CallRecord["status"], timing: Timing): Promise<boolean> {
  const key = Keys.call(record.agentId, record.callId);
  const index = indexFor(record, key.pk, timing);
  return whenCondition(db, () =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: key,
        UpdateExpression: "SET #call = :call, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, expiresAt = :expiresAt",
        ConditionExpression: "#call.#status = :from",
        ExpressionAttributeNames: { "#call": "call", "#status": "status" },
        ExpressionAttributeValues: {
          ":call": record,
          ":from": fromStatus,
          ":gsi1pk": index.gsi1pk,
          ":gsi1sk": index.gsi1sk,
          ":expiresAt": timing.expiresAt,
        },
      }),
    ),
  );
}

export async function getCall(db: Db, agentId: string, callId: string): Promise<CallRecord | undefined> {
  const { Item } = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: Keys.call(agentId, callId), ConsistentRead: true }),
  );
  return Item ? CallRecord.parse(Item.call) : undefined;
}

export async function listCalls(
  db: Db,
  agentId: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ calls: CallRecord[]; nextCursor?: string }> {
  const page = await db.doc.send(
    new QueryCommand({
      TableName: db.table,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": Keys.call(agentId, "").pk, ":prefix": "CALL#" },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: cursor === undefined ? undefined : decodeCursor(cursor, Keys.call(agentId, "").pk, "CALL#"),
    }),
  );
  const calls = (page.Items ?? []).map((item) => CallRecord.parse(item.call));
  return page.LastEvaluatedKey ? { calls, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { calls };
}

/** What is kept beside a waiting call: its agent, and its real arguments sealed (or, from earlier versions, as JSON text). */
export type PendingCall = { agentId: string; sealed?: string; legacyArguments?: Record<string, unknown> };

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
  await whenCondition(db, () =>
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
