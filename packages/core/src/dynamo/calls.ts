import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { badRequest } from "../error";
import { CallRecord } from "../call/schema";
import type { Db } from "./client";
import { conditional } from "./errors";
import { expiryIndex, Keys, runningIndex } from "./keys";
import { WriteConflictError } from "../error";

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

type Timing = { expiresAt: number };

function indexFor(record: CallRecord, pk: string, timing: Timing) {
  if (record.status === "running" && record.deadline) return runningIndex(pk, epochSeconds(record.deadline));
  return expiryIndex(pk, timing.expiresAt);
}

export async function putCall(db: Db, record: CallRecord, timing: Timing): Promise<void> {
  const key = Keys.call(record.agentId, record.callId);
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: { ...key, ...indexFor(record, key.pk, timing), expiresAt: timing.expiresAt, call: record },
    }),
  );
}

/** Records a call's outcome if it is still `fromStatus`; returns false when something else (cleanup) settled it first. */
export async function settleCall(db: Db, record: CallRecord, fromStatus: CallRecord["status"], timing: Timing): Promise<boolean> {
  const key = Keys.call(record.agentId, record.callId);
  const index = indexFor(record, key.pk, timing);
  try {
    await conditional(() =>
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
    return true;
  } catch (error) {
    if (error instanceof WriteConflictError) return false;
    throw error;
  }
}

export async function getCall(db: Db, agentId: string, callId: string): Promise<CallRecord | undefined> {
  const { Item } = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: Keys.call(agentId, callId), ConsistentRead: true }),
  );
  return Item ? CallRecord.parse(Item.call) : undefined;
}

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString("base64url");

function decodeCursor(cursor: string, agentId: string): Record<string, unknown> {
  const invalid = badRequest("invalid_cursor", "The cursor is not one this list handed out; start again without it.");
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  const expectedPk = Keys.call(agentId, "").pk;
  if (
    typeof key !== "object" ||
    key === null ||
    (key as { pk?: unknown }).pk !== expectedPk ||
    typeof (key as { sk?: unknown }).sk !== "string" ||
    !((key as { sk: string }).sk.startsWith("CALL#")) ||
    Object.keys(key).length !== 2
  )
    throw invalid;
  return key as Record<string, unknown>;
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
      ExclusiveStartKey: cursor === undefined ? undefined : decodeCursor(cursor, agentId),
    }),
  );
  const calls = (page.Items ?? []).map((item) => CallRecord.parse(item.call));
  return page.LastEvaluatedKey ? { calls, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { calls };
}
