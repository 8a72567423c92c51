import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import type { Item } from "./query";

type Key = { pk: string; sk: string };

const keyOf = (key: Key) => `${key.pk}\u0000${key.sk}`;

/** Strongly consistent reads of several items in one round trip (more only if DynamoDB leaves some unprocessed). */
export async function getItems(db: Db, keys: Key[], projection?: { expression: string; names: Record<string, string> }): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  let pending: Record<string, unknown>[] = keys;
  const project = projection ? { ProjectionExpression: `pk, sk, ${projection.expression}`, ExpressionAttributeNames: projection.names } : {};
  while (pending.length) {
    const result = await db.doc.send(new BatchGetCommand({ RequestItems: { [db.table]: { Keys: pending, ConsistentRead: true, ...project } } }));
    for (const item of (result.Responses?.[db.table] ?? []) as Item[]) found.set(keyOf(item as Key), item);
    pending = (result.UnprocessedKeys?.[db.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return found;
}

export const itemAt = (items: Map<string, Item>, key: Key) => items.get(keyOf(key));
