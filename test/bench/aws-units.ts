import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import { itemBytes } from "./item-size";
import type { ItemReader } from "./item-reader";
import { entryKey, keysOf, readEntries, SCAN_OPERATIONS, writeEntries } from "./requests";
import { keyId, keyOf } from "./table-shape";
import type { IndexShape, Item, TableShape } from "./table-shape";

// DynamoDB's billing rules: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
// and, for transactions, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;
const TRANSACTIONAL_FACTOR = 2;
const EVENTUALLY_CONSISTENT_FACTOR = 0.5;

export type UnitEstimate = {
  writeUnits: number;
  readUnits: number;
  /** Write units of the global secondary indexes (included in writeUnits): standard writes of the projected item. */
  indexWriteUnits: number;
  /** Per request: "TransactWriteItems[check 262B:2 put 517B:2] gsi1:1". */
  breakdown: string;
};

const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
const readUnits = (bytes: number, consistent: boolean, transactional: boolean) =>
  Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) *
  (transactional ? TRANSACTIONAL_FACTOR : 1) *
  (consistent ? 1 : EVENTUALLY_CONSISTENT_FACTOR);

function indexEntry(item: Item | null, index: IndexShape, shape: TableShape): Item | null {
  if (!item || item[index.hashKey] === undefined || (index.rangeKey && item[index.rangeKey] === undefined)) return null;
  if (index.projection === "ALL") return item;
  const names = [index.hashKey, index.rangeKey, ...Object.keys(keyOf(item, shape)), ...(index.projection === "INCLUDE" ? index.include : [])];
  return Object.fromEntries(names.filter((name) => name && item[name] !== undefined).map((name) => [name!, item[name!]!]));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Index writes for one item going from prior to next: a put, a delete, both when its index key moved, an update. */
function indexWriteUnits(prior: Item | null, next: Item | null, shape: TableShape): number {
  let units = 0;
  for (const index of shape.indexes) {
    const before = indexEntry(prior, index, shape);
    const after = indexEntry(next, index, shape);
    const keyOfEntry = (entry: Item) => [entry[index.hashKey], index.rangeKey ? entry[index.rangeKey] : null];
    if (before && after && same(keyOfEntry(before), keyOfEntry(after))) {
      if (!same(before, after)) units += writeUnits(itemBytes(after));
      continue;
    }
    if (before) units += writeUnits(itemBytes(before));
    if (after) units += writeUnits(itemBytes(after));
  }
  return units;
}

/**
 * What the requests would cost on DynamoDB, from the sizes of the items they wrote and read. `before` holds the items
 * as stored before the requests (keys not in it count as new items); `after` as stored after them (what an update
 * left). A put or update bills the larger of the item before and after; a condition check, the item as stored.
 */
export async function estimateUnits(
  requests: readonly DynamoRequest[],
  reader: ItemReader,
  before: ReadonlyMap<string, Item | null>,
  after: ReadonlyMap<string, Item | null>,
): Promise<UnitEstimate> {
  const shape = reader.shape;
  const state = new Map(before);
  const stored = async (key: Item) => {
    const id = keyId(key, shape);
    return state.has(id) ? state.get(id)! : reader.item(key);
  };
  let tableWrites = 0;
  let indexWrites = 0;
  let reads = 0;
  const parts: string[] = [];
  for (const request of [...requests].sort((a, b) => a.startedMs - b.startedMs)) {
    const terms: string[] = [];
    const written = new Map<string, Item | null>(); // a transaction's items all see the state before it
    for (const { kind, entry, transactional } of writeEntries(request)) {
      const id = keyId(entryKey(entry, shape), shape);
      const prior = state.get(id) ?? null;
      const next = kind === "put" ? (entry.Item as Item) : kind === "update" ? (after.get(id) ?? null) : kind === "delete" ? null : prior;
      const bytes = kind === "check" ? itemBytes(prior) : Math.max(itemBytes(prior), itemBytes(next));
      const units = writeUnits(bytes) * (transactional ? TRANSACTIONAL_FACTOR : 1);
      tableWrites += units;
      terms.push(`${kind} ${bytes}B:${units}`);
      if (kind !== "check") {
        indexWrites += indexWriteUnits(prior, next, shape);
        written.set(id, next);
      }
    }
    for (const [id, item] of written) state.set(id, item);
    for (const { key, consistent, transactional } of readEntries(request)) {
      const bytes = itemBytes(await stored(key));
      const units = readUnits(bytes, consistent, transactional);
      reads += units;
      terms.push(`get ${bytes}B:${units}`);
    }
    if (SCAN_OPERATIONS.has(request.operation)) {
      const bytes = (await reader.scanned(request)).reduce((sum, item) => sum + itemBytes(item), 0);
      const units = readUnits(bytes, request.input.ConsistentRead === true, false);
      reads += units;
      terms.push(`${bytes}B:${units}`);
    }
    parts.push(`${request.operation}[${terms.join(" ")}]`);
  }
  const index = shape.indexes.map((index) => index.name).join("+") || "indexes";
  return {
    writeUnits: tableWrites + indexWrites,
    readUnits: reads,
    indexWriteUnits: indexWrites,
    breakdown: `${parts.join(" ")} ${index}:${indexWrites}`,
  };
}

/**
 * Runs `call` twice outside any measured time: the first run names the keys, whose items are read just before the
 * second; the second is recorded and its items read again after it. Returns the second run's AWS units.
 */
export async function estimateCall(reader: ItemReader, recorder: DynamoRecorder, call: () => Promise<unknown>): Promise<UnitEstimate> {
  const recorded = async () => {
    recorder.begin();
    await call().catch((error: unknown) => {
      recorder.end();
      throw error;
    });
    return recorder.end();
  };
  const keysOfAll = (requests: DynamoRequest[]) => requests.flatMap((request) => keysOf(request, reader.shape));
  const before = await reader.items(keysOfAll(await recorded()));
  const requests = await recorded();
  const after = await reader.items(keysOfAll(requests));
  return estimateUnits(requests, reader, before, after);
}
