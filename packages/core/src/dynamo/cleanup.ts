import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import { EXPIRES_PREFIX, indexUpTo, RUNNING_PREFIX, shardsOf } from "./keys";
import { queryPages } from "./query";
import type { Item } from "./query";

const BATCH = 25;

async function* dueItems(db: Db, prefix: string, nowSeconds: number): AsyncGenerator<Item[]> {
  for (const shard of shardsOf(prefix))
    yield* queryPages(db, {
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :shard AND gsi1sk <= :due",
      ExpressionAttributeValues: { ":shard": shard, ":due": indexUpTo(nowSeconds) },
    });
}

/** Pages of items whose expiry has passed (DynamoDB Local never applies TTL). */
export const expiredItems = (db: Db, nowSeconds: number) => dueItems(db, EXPIRES_PREFIX, nowSeconds);

/** Pages of call items still waiting past their deadline. */
export const lapsedCallItems = (db: Db, nowSeconds: number) => dueItems(db, RUNNING_PREFIX, nowSeconds);

export async function deleteItems(db: Db, items: Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) {
    let requests = items.slice(i, i + BATCH).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    while (requests.length) {
      const result = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.table]: requests } }));
      requests = (result.UnprocessedItems?.[db.table] as typeof requests | undefined) ?? [];
    }
  }
}
