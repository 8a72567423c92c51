import { createHash } from "node:crypto";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import type { Item, Page } from "./query";

export type IndexName = "gsi1" | "gsi2";

/** One index partition read in sort-key order; `filter` only where the page reads a single partition (see mergedPage). */
export type Source = {
  index: IndexName;
  pk: string;
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
};

type Key = Record<string, unknown>;
/** Where each source resumes: from its start, after a key, or nowhere (read to its end). */
type Position = null | Key | "done";

const MAX_READS_PER_SOURCE = 10;

const keyNames = (index: IndexName) => ["pk", "sk", `${index}pk`, `${index}sk`];
const keyOf = (item: Item, index: IndexName): Key => Object.fromEntries(keyNames(index).map((name) => [name, item[name]]));
const sortKeyOf = (item: Item, index: IndexName) => String(item[`${index}sk`]);

/** Ties a cursor to the query it was handed out for, so one list's cursor is refused by another. */
const fingerprint = (sources: Source[], ascending: boolean) =>
  createHash("sha256")
    .update(JSON.stringify([ascending, sources.map(({ index, pk, filter }) => [index, pk, filter?.values ?? null])]))
    .digest("base64url")
    .slice(0, 16);

function decodePositions(cursor: string, sources: Source[], ascending: boolean): Position[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const { q, at } = (parsed ?? {}) as { q?: unknown; at?: unknown };
  if (q !== fingerprint(sources, ascending) || !Array.isArray(at) || at.length !== sources.length) return undefined;
  const valid = at.every((position: unknown, i) => {
    if (position === null || position === "done") return true;
    if (typeof position !== "object" || Array.isArray(position)) return false;
    const names = keyNames(sources[i]!.index);
    const entries = Object.entries(position as Key);
    return entries.length === names.length && entries.every(([name, value]) => names.includes(name) && typeof value === "string") && (position as Key)[names[2]!] === sources[i]!.pk;
  });
  return valid ? (at as Position[]) : undefined;
}

type Read = { items: Item[]; next: Position };

/** Up to `limit` items of one source from its position (reading on past filtered-out items, a bounded number of times). */
async function readSource(db: Db, source: Source, ascending: boolean, limit: number, from: Position): Promise<Read> {
  if (from === "done") return { items: [], next: "done" };
  const items: Item[] = [];
  let start = from ?? undefined;
  for (let reads = 0; reads < MAX_READS_PER_SOURCE; reads++) {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        IndexName: source.index,
        KeyConditionExpression: `${source.index}pk = :pk`,
        ...(source.filter ? { FilterExpression: source.filter.expression, ExpressionAttributeNames: source.filter.names } : {}),
        ExpressionAttributeValues: { ":pk": source.pk, ...source.filter?.values },
        ScanIndexForward: ascending,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
    if (!start) return { items, next: "done" };
    if (items.length >= limit) break;
  }
  return { items, next: start ?? "done" };
}

/**
 * One page of several index partitions merged in sort-key order, with a cursor that keeps each partition's own
 * position (so ties across partitions and pages of different lengths resume exactly). Each partition is read for up
 * to `limit` items; a partition with a filter may stop short of that, which is exact only when it is the only one.
 */
export async function mergedPage(db: Db, sources: Source[], order: "ascending" | "descending", limit: number, cursor: string | undefined): Promise<Page | "invalid_cursor"> {
  const ascending = order === "ascending";
  const positions = cursor === undefined ? sources.map((): Position => null) : decodePositions(cursor, sources, ascending);
  if (!positions) return "invalid_cursor";
  const reads = await Promise.all(sources.map((source, i) => readSource(db, source, ascending, limit, positions[i]!)));
  const taken = reads.map(() => 0);
  const items: Item[] = [];
  while (items.length < limit) {
    let best = -1;
    for (let i = 0; i < reads.length; i++) {
      const candidate = reads[i]!.items[taken[i]!];
      if (!candidate) continue;
      const current = best < 0 ? undefined : reads[best]!.items[taken[best]!]!;
      const key = sortKeyOf(candidate, sources[i]!.index);
      if (!current || (ascending ? key < sortKeyOf(current, sources[best]!.index) : key > sortKeyOf(current, sources[best]!.index))) best = i;
    }
    if (best < 0) break;
    items.push(reads[best]!.items[taken[best]!]!);
    taken[best]!++;
  }
  const next = reads.map((read, i): Position => {
    if (taken[i] === read.items.length) return read.next;
    return taken[i] === 0 ? positions[i]! : keyOf(read.items[taken[i]! - 1]!, sources[i]!.index);
  });
  if (next.every((position) => position === "done")) return { items };
  return { items, nextCursor: Buffer.from(JSON.stringify({ q: fingerprint(sources, ascending), at: next })).toString("base64url") };
}
