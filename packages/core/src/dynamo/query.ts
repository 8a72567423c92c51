import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";

export type Item = Record<string, unknown>;
type Query = Omit<QueryCommandInput, "TableName" | "ExclusiveStartKey" | "Limit">;

/** Every page of a query, one after another (each of at most `pageSize` items read, when given). */
export async function* queryPages(db: Db, query: Query, pageSize?: number): AsyncGenerator<Item[]> {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ ...query, TableName: db.table, ExclusiveStartKey: cursor, Limit: pageSize }));
    yield (page.Items ?? []) as Item[];
    cursor = page.LastEvaluatedKey;
  } while (cursor);
}

export async function queryAll(db: Db, query: Query): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(db, query)) items.push(...page);
  return items;
}

export type Page = { items: Item[]; nextCursor?: string };

const encodeCursor = (key: Record<string, unknown>, scope?: string) =>
  Buffer.from(JSON.stringify(scope === undefined ? key : { ...key, scope })).toString("base64url");

/** A cursor this store handed out for the same partition, item kind and filter (its scope), or undefined. */
function decodeCursor(cursor: string, pk: string, skPrefix: string, scope?: string): Record<string, unknown> | undefined {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof key !== "object" || key === null || Array.isArray(key)) return undefined;
  const { pk: keyPk, sk, scope: keyScope, ...rest } = key as Record<string, unknown>;
  if (keyPk !== pk || typeof sk !== "string" || !sk.startsWith(skPrefix) || keyScope !== scope || Object.keys(rest).length) return undefined;
  return { pk: keyPk, sk };
}

/** A condition on the items of a partition, applied by DynamoDB after it reads them (a FilterExpression). */
export type PartitionFilter = { expression: string; names: Record<string, string>; values: Record<string, unknown> };

/** How many items one filtered page may read before it answers with what it found and a cursor to go on from. */
const FILTERED_READ_BUDGET = 1_000;

/**
 * One page of the items of a partition whose sort key starts with a prefix, optionally filtered; "invalid_cursor"
 * for a cursor not handed out here. A filtered page reads on until it has `limit` items, the partition ends or it
 * has read its budget, so a page may hold fewer items and still have a cursor.
 */
export async function queryPartitionPage(
  db: Db,
  partition: { pk: string; skPrefix: string; newestFirst: boolean },
  limit: number,
  cursor: string | undefined,
  filter?: PartitionFilter,
): Promise<Page | "invalid_cursor"> {
  const scope = filter && JSON.stringify(filter.values);
  let start = cursor === undefined ? undefined : decodeCursor(cursor, partition.pk, partition.skPrefix, scope);
  if (cursor !== undefined && start === undefined) return "invalid_cursor";
  const items: Item[] = [];
  for (let read = 0; ; ) {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": partition.pk, ":prefix": partition.skPrefix, ...filter?.values },
        ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeNames: filter.names } : {}),
        ScanIndexForward: !partition.newestFirst,
        Limit: filter ? Math.max(limit, 100) : limit,
        ExclusiveStartKey: start,
      }),
    );
    read += page.ScannedCount ?? 0;
    for (const item of (page.Items ?? []) as Item[]) {
      items.push(item);
      if (items.length === limit) return { items, nextCursor: encodeCursor({ pk: item.pk, sk: item.sk }, scope) };
    }
    if (!page.LastEvaluatedKey) return { items };
    start = page.LastEvaluatedKey;
    if (!filter || read >= FILTERED_READ_BUDGET) return { items, nextCursor: encodeCursor(start, scope) };
  }
}
