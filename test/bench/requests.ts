import type { DynamoRequest } from "./dynamo-record";
import { keyOf } from "./table-shape";
import type { Item, TableShape } from "./table-shape";

export type WriteKind = "put" | "update" | "delete" | "check";

/** One item a write request touches: `entry` is the request object that names it (mutable, for the floor's rewrites). */
export type WriteEntry = { kind: WriteKind; entry: Record<string, any>; transactional: boolean };

/** One item a read request reads by key. */
export type ReadEntry = { key: Item; consistent: boolean; transactional: boolean };

export const SCAN_OPERATIONS = new Set(["Query", "Scan"]);

const TRANSACT_KINDS: Record<string, WriteKind> = { Put: "put", Update: "update", Delete: "delete", ConditionCheck: "check" };

/** The items a write request puts, updates, deletes or checks, in request order; none for a read. */
export function writeEntries(request: Pick<DynamoRequest, "operation" | "input">): WriteEntry[] {
  const { operation, input } = request;
  switch (operation) {
    case "PutItem":
      return [{ kind: "put", entry: input, transactional: false }];
    case "UpdateItem":
      return [{ kind: "update", entry: input, transactional: false }];
    case "DeleteItem":
      return [{ kind: "delete", entry: input, transactional: false }];
    case "TransactWriteItems":
      return (input.TransactItems as Record<string, any>[]).map((action) => {
        const [name, entry] = Object.entries(action).find(([name]) => name in TRANSACT_KINDS)!;
        return { kind: TRANSACT_KINDS[name]!, entry, transactional: true };
      });
    case "BatchWriteItem":
      return Object.values(input.RequestItems as Record<string, Record<string, any>[]>)
        .flat()
        .map((request) =>
          request.PutRequest
            ? { kind: "put" as const, entry: request.PutRequest, transactional: false }
            : { kind: "delete" as const, entry: request.DeleteRequest, transactional: false },
        );
    default:
      return [];
  }
}

/** The items a read request reads by key (Query and Scan read ranges: see SCAN_OPERATIONS). */
export function readEntries(request: Pick<DynamoRequest, "operation" | "input">): ReadEntry[] {
  const { operation, input } = request;
  switch (operation) {
    case "GetItem":
      return [{ key: input.Key, consistent: input.ConsistentRead === true, transactional: false }];
    case "BatchGetItem":
      return Object.values(input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>).flatMap((table) =>
        table.Keys.map((key) => ({ key, consistent: table.ConsistentRead === true, transactional: false })),
      );
    case "TransactGetItems":
      return (input.TransactItems as { Get: { Key: Item } }[]).map(({ Get }) => ({ key: Get.Key, consistent: true, transactional: true }));
    default:
      return [];
  }
}

export const entryKey = (entry: Record<string, any>, shape: TableShape): Item => entry.Key ?? keyOf(entry.Item, shape);

/** Every key a request touches by key, writes and reads. */
export const keysOf = (request: DynamoRequest, shape: TableShape): Item[] => [
  ...writeEntries(request).map(({ entry }) => entryKey(entry, shape)),
  ...readEntries(request).map(({ key }) => key),
];

const EXPRESSION_FIELDS = ["ConditionExpression", "UpdateExpression", "ProjectionExpression", "KeyConditionExpression", "FilterExpression"];
const PLACEHOLDER_MAPS = ["ExpressionAttributeNames", "ExpressionAttributeValues"];

/** Drops #names and :values no expression of the entry refers to any more (DynamoDB rejects unused ones, and empty maps). */
export function pruneExpressionAttributes(entry: Record<string, any>): void {
  const expressions = EXPRESSION_FIELDS.map((field) => entry[field] ?? "").join(" ");
  const used = new Set(expressions.match(/[#:][A-Za-z0-9_]+/g) ?? []);
  for (const field of PLACEHOLDER_MAPS) {
    if (!entry[field]) continue;
    const kept = Object.fromEntries(Object.entries(entry[field] as object).filter(([placeholder]) => used.has(placeholder)));
    if (Object.keys(kept).length > 0) entry[field] = kept;
    else delete entry[field];
  }
}
