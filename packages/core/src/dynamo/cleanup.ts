import { BatchWriteCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import { AWAITING_PREFIX, indexUpTo, RUNNING_PREFIX, shardsOf } from "./keys";
import { queryPages } from "./query";
import type { Item } from "./query";

const BATCH = 25;

/** Pages of call items still waiting past their deadline, from the sparse index of waiting calls. */
export async function* lapsedCallItems(db: Db, nowSeconds: number): AsyncGenerator<Item[]> {
  for (const shard of [...shardsOf(RUNNING_PREFIX), ...shardsOf(AWAITING_PREFIX)])
    yield* queryPages(db, {
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :shard AND gsi1sk <= :due",
      ExpressionAttributeValues: { ":shard": shard, ":due": indexUpTo(nowSeconds) },
    });
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
