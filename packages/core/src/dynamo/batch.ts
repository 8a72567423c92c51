import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import type { Item } from "./query";

type Key = { pk: string; sk: string };

const keyOf = (key: Key) => `${key.pk}\u0000${key.sk}`;

/** BatchGetItem takes at most 100 keys a request. */
const BATCH_GET_LIMIT = 100;

/**
 * Strongly consistent reads of several items: one round trip per 100 keys, made together (more only if DynamoDB
 * leaves some unprocessed).
 */
export async function getItems(db: Db, keys: Key[], projection?: { expression: string; names: Record<string, string> }): Promise<Map<string, Item>> {
  if (keys.length > BATCH_GET_LIMIT) {
    const chunks = Array.from({ length: Math.ceil(keys.length / BATCH_GET_LIMIT) }, (_, i) => keys.slice(i * BATCH_GET_LIMIT, (i + 1) * BATCH_GET_LIMIT));
    return new Map((await Promise.all(chunks.map((chunk) => getItems(db, chunk, projection)))).flatMap((found) => [...found]));
  }
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
