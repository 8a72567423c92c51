import { BatchWriteCommand, GetCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { encodeTime } from "ulid";
import type { Db } from "./client";
import { ADMITTED_PREFIX, admittedSince, agentOfAdmitted, AWAITING_PREFIX, indexUpTo, Keys, QUESTIONS_PREFIX, RUNNING_PREFIX, shardsOf } from "./keys";
import { attempt } from "./write";
import { queryPages } from "./query";
import type { Item } from "./query";

const BATCH = 25;

/** Pages of call items still waiting past their deadline, from the sparse index of waiting calls. */
export async function* lapsedCallItems(db: Db, nowSeconds: number): AsyncGenerator<Item[]> {
  for (const shard of [...shardsOf(RUNNING_PREFIX), ...shardsOf(AWAITING_PREFIX), ...shardsOf(QUESTIONS_PREFIX)])
    yield* queryPages(db, {
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :shard AND gsi1sk <= :due",
      ExpressionAttributeValues: { ":shard": shard, ":due": indexUpTo(nowSeconds) },
    });
}

/** Agents with a call admitted at or after `fromMs` (and some from earlier in that hour), from the keys-only gsi3. */
export async function* admittedAgents(db: Db, fromMs: number): AsyncGenerator<string[]> {
  for (const shard of shardsOf(ADMITTED_PREFIX))
    for await (const items of queryPages(db, {
      IndexName: "gsi3",
      KeyConditionExpression: "gsi3pk = :shard AND gsi3sk >= :from",
      ExpressionAttributeValues: { ":shard": shard, ":from": admittedSince(fromMs) },
    }))
      yield items.map((item) => agentOfAdmitted(String(item.gsi3sk)));
}

/** Call ids sort by the time they were made (ULIDs): the first sort key of a call made at `epochMs`. */
const callsFrom = (agentId: string, epochMs: number) => Keys.call(agentId, `call_${encodeTime(Math.max(0, epochMs), 10)}`).sk;

/**
 * Pages of an agent's call items made in [fromMs, toMs) that still wait (running, or for their runtime's result).
 * Eventually consistent: a call just settled may still look waiting, and its lapse then finds it moved and does nothing.
 */
export async function* waitingCallsMade(db: Db, agentId: string, fromMs: number, toMs: number): AsyncGenerator<Item[]> {
  yield* queryPages(db, {
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
    FilterExpression: "#call.#status IN (:running, :authorized)",
    ExpressionAttributeNames: { "#call": "call", "#status": "status" },
    ExpressionAttributeValues: { ":pk": Keys.call(agentId, "").pk, ":from": callsFrom(agentId, fromMs), ":to": callsFrom(agentId, toMs), ":running": "running", ":authorized": "authorized" },
  });
}

/** Up to when every call admitted straight to running or to its runtime has been looked at; undefined before the first walk. */
export async function readAdmittedWalk(db: Db): Promise<number | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.admittedWalk(), ConsistentRead: true }));
  return typeof Item?.through === "number" ? Item.through : undefined;
}

/** Moves the walk's mark on, only from where this walk found it: of two cleanups at once, one moves it. */
export async function moveAdmittedWalk(db: Db, from: number | undefined, through: number): Promise<boolean> {
  const outcome = await attempt(() =>
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: { ...Keys.admittedWalk(), through },
        ...(from === undefined ? { ConditionExpression: "attribute_not_exists(pk)" } : { ConditionExpression: "through = :from", ExpressionAttributeValues: { ":from": from } }),
      }),
    ),
  );
  return outcome.kind === "ok";
}

/**
 * Pages of items whose expiry has passed, for a store that does not apply TTL itself (DynamoDB Local): a sweep
 * of the table by the scheduled cleanup, never on a request path. On AWS, TTL deletes them and nothing sweeps.
 */
export async function* expiredItems(db: Db, nowSeconds: number): AsyncGenerator<Item[]> {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new ScanCommand({
        TableName: db.table,
        FilterExpression: "expiresAt <= :now",
        ExpressionAttributeValues: { ":now": nowSeconds },
        ProjectionExpression: "pk, sk",
        ExclusiveStartKey: cursor,
      }),
    );
    yield (page.Items ?? []) as Item[];
    cursor = page.LastEvaluatedKey;
  } while (cursor);
}

export async function deleteItems(db: Db, items: Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) {
    let requests = items.slice(i, i + BATCH).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    while (requests.length) {
      const result = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.table]: requests } }));
      requests = (result.UnprocessedItems?.[db.table] as typeof requests | undefined) ?? [];
    }
  }
}
