import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";

export type Item = Record<string, unknown>;
type Query = Omit<QueryCommandInput, "TableName" | "ExclusiveStartKey" | "Limit">;

/** Every page of a query, one after another. */
export async function* queryPages(db: Db, query: Query): AsyncGenerator<Item[]> {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ ...query, TableName: db.table, ExclusiveStartKey: cursor }));
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

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString("base64url");

/** A cursor this store handed out for the same partition and item kind, or undefined. */
function decodeCursor(cursor: string, pk: string, skPrefix: string): Record<string, unknown> | undefined {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof key !== "object" || key === null || Array.isArray(key)) return undefined;
  const { pk: keyPk, sk, ...rest } = key as Record<string, unknown>;
  if (keyPk !== pk || typeof sk !== "string" || !sk.startsWith(skPrefix) || Object.keys(rest).length) return undefined;
  return { pk: keyPk, sk };
}

/** One page of the items of a partition whose sort key starts with a prefix; "invalid_cursor" for a cursor not handed out here. */
export async function queryPartitionPage(
  db: Db,
  partition: { pk: string; skPrefix: string; newestFirst: boolean },
  limit: number,
  cursor: string | undefined,
): Promise<Page | "invalid_cursor"> {
  const start = cursor === undefined ? undefined : decodeCursor(cursor, partition.pk, partition.skPrefix);
  if (cursor !== undefined && start === undefined) return "invalid_cursor";
  const page = await db.doc.send(
    new QueryCommand({
      TableName: db.table,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": partition.pk, ":prefix": partition.skPrefix },
      ScanIndexForward: !partition.newestFirst,
      Limit: limit,
      ExclusiveStartKey: start,
    }),
  );
  const items = (page.Items ?? []) as Item[];
  return page.LastEvaluatedKey ? { items, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { items };
}
