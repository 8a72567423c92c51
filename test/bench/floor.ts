import { BatchWriteItemCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { BatchWriteItemCommandOutput } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { performance } from "node:perf_hooks";
import { setTimeout as idle } from "node:timers/promises";
import { DynamoRecorder } from "./dynamo-record";
import type { DynamoRequest } from "./dynamo-record";
import { countRoundTrips, timeDynamo } from "./support";
import { entryKey, pruneExpressionAttributes, writeEntries } from "./requests";
import type { WriteKind } from "./requests";
import { describeTable, keyId } from "./table-shape";
import type { Item, TableShape } from "./table-shape";

/** Floor items live in their own partitions: FLOOR#<replay>#<the real partition key>. */
const FLOOR_PREFIX = "FLOOR#";
const LOCAL_REGION = "us-east-1";
const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };
const BATCH_WRITE_LIMIT = 25;
const ALWAYS_TRUE_ON_A_FRESH_KEY = "attribute_not_exists(#floorHashKey)";

// Marshalled fields that hold AttributeValue maps, and the one that holds a list of them (BatchGetItem's Keys).
const ATTRIBUTE_MAP_FIELDS = new Set(["Item", "Key", "ExpressionAttributeValues", "ExclusiveStartKey"]);
const ATTRIBUTE_MAP_LIST_FIELD = "Keys";

type DocumentCommand = new (input: any) => any;
const DOCUMENT_COMMANDS: Record<string, DocumentCommand> = {
  BatchGetItem: BatchGetCommand,
  BatchWriteItem: BatchWriteCommand,
  DeleteItem: DeleteCommand,
  GetItem: GetCommand,
  PutItem: PutCommand,
  Query: QueryCommand,
  Scan: ScanCommand,
  TransactGetItems: TransactGetCommand,
  TransactWriteItems: TransactWriteCommand,
  UpdateItem: UpdateCommand,
};

type Step = { operation: string; command: object };
/** Requests made together, and how long toolgate's call was between the group before and these (its tool running). */
type Group = { steps: Step[]; afterMs: number };

/**
 * A default SDK client carrying the bench's instruments exactly as toolgate's client carries them (asking for
 * capacity, recording, timing, counting round trips), so what they cost per request is paid on both sides.
 */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  new DynamoRecorder(client);
  timeDynamo(client);
  countRoundTrips(client, () => {});
  return client;
}

/** Deletes the items with these keys, 25 to a request. */
export async function deleteItems(client: DynamoDBClient, table: string, keys: readonly Item[]): Promise<void> {
  for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
    let requests: Record<string, any> | undefined = { [table]: keys.slice(start, start + BATCH_WRITE_LIMIT).map((Key) => ({ DeleteRequest: { Key } })) };
    while (requests && Object.keys(requests).length > 0) {
      const written: BatchWriteItemCommandOutput = await client.send(new BatchWriteItemCommand({ RequestItems: requests }));
      requests = written.UnprocessedItems;
    }
  }
}

/** Requests in start order, grouped where they overlapped in time (those were in flight together). */
export function concurrentGroups(requests: readonly DynamoRequest[]): DynamoRequest[][] {
  const groups: DynamoRequest[][] = [];
  let groupEndMs = Number.NEGATIVE_INFINITY;
  for (const request of [...requests].sort((a, b) => a.startedMs - b.startedMs)) {
    if (groups.length > 0 && request.startedMs < groupEndMs) {
      groups.at(-1)!.push(request);
      groupEndMs = Math.max(groupEndMs, request.endedMs);
    } else {
      groups.push([request]);
      groupEndMs = request.endedMs;
    }
  }
  return groups;
}

/** Marshalled input to what the document client takes: AttributeValue maps unmarshalled, numbers kept exact. */
function toDocumentInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDocumentInput);
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value;
  return Object.fromEntries(
    Object.entries(value).map(([field, member]) => {
      if (ATTRIBUTE_MAP_FIELDS.has(field)) return [field, unmarshall(member, { wrapNumbers: true })];
      if (field === ATTRIBUTE_MAP_LIST_FIELD && Array.isArray(member))
        return [field, member.map((key: Item) => unmarshall(key, { wrapNumbers: true }))];
      return [field, toDocumentInput(member)];
    }),
  );
}

/** A condition made only of attribute_not_exists(...) terms joined by AND holds on an item that is not there. */
const holdsOnAMissingItem = (condition: string) =>
  condition.split(/\s+AND\s+/i).every((term) => /^\(*\s*attribute_not_exists\s*\(\s*[#\w.[\]]+\s*\)\s*\)*$/i.test(term.trim()));

/**
 * The DynamoDB floor of a guarded call: the same requests, made directly with the SDK's document client on a client
 * of its own, writes moved to floor partitions. Reads keep their keys: they change nothing, and read the same items.
 */
export class DynamoFloor {
  /** The last replay's operations: "," between requests made one after the other, "+" between concurrent ones. */
  operations = "none";
  private replays = 0;
  private readonly doc: DynamoDBDocumentClient;
  private readonly floorKeys = new Map<string, Item>();

  private constructor(
    readonly client: DynamoDBClient,
    readonly shape: TableShape,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
  }

  static async open(endpoint: string, table: string): Promise<DynamoFloor> {
    const client = localDynamoClient(endpoint);
    return new DynamoFloor(client, await describeTable(client, table));
  }

  /**
   * Replays the requests and returns the wall time, in ms, of making them (marshalling included). `spaced`: each group
   * of requests comes as long after the one before as it came in toolgate's call, idle and not timed. DynamoDB Local
   * answers a request that comes a few ms after the last ones more slowly than one that comes right after them.
   */
  async replay(requests: readonly DynamoRequest[], { spaced = false } = {}): Promise<number> {
    const plan = this.plan(requests);
    let elapsed = 0;
    for (const { steps, afterMs } of plan) {
      if (spaced && afterMs > 0) await idle(afterMs);
      const started = performance.now();
      if (steps.length === 1) await this.doc.send(steps[0]!.command as any);
      else await Promise.all(steps.map((step) => this.doc.send(step.command as any)));
      elapsed += performance.now() - started;
    }
    this.operations = plan.map(({ steps }) => steps.map((step) => step.operation).join("+")).join(",") || "none";
    return elapsed;
  }

  /** Deletes every item the floor wrote, so the rest of the bench sees the table as the guard left it. */
  async removeItems(): Promise<number> {
    const keys = [...this.floorKeys.values()];
    await deleteItems(this.client, this.shape.table, keys);
    this.floorKeys.clear();
    return keys.length;
  }

  close(): void {
    this.client.destroy();
  }

  private plan(requests: readonly DynamoRequest[]): Group[] {
    const prefix = `${FLOOR_PREFIX}${++this.replays}#`;
    const written = new Set<string>();
    let lastEndedMs: number | undefined;
    return concurrentGroups(requests).map((group) => {
      const afterMs = lastEndedMs === undefined ? 0 : Math.max(0, group[0]!.startedMs - lastEndedMs);
      lastEndedMs = Math.max(...group.map((request) => request.endedMs));
      // Requests in flight together cannot count on each other's writes: mark the group's writes after it.
      const writtenBefore = new Set(written);
      const steps = group.map((request) => {
        const Command = DOCUMENT_COMMANDS[request.operation];
        if (!Command) throw new Error(`the floor cannot replay ${request.operation}: add its document command`);
        const input = structuredClone(request.input);
        delete input.ClientRequestToken; // a replayed idempotency token would name a different request
        for (const { kind, entry } of writeEntries({ operation: request.operation, input })) {
          const id = this.moveToFloor(entry, prefix);
          this.relaxCondition(entry, kind, writtenBefore.has(id));
          if (kind !== "check") {
            written.add(id);
            this.floorKeys.set(id, entryKey(entry, this.shape));
          }
        }
        return { operation: request.operation, command: new Command(toDocumentInput(input)) };
      });
      return { steps, afterMs };
    });
  }

  private moveToFloor(entry: Record<string, any>, prefix: string): string {
    const named = (entry.Key ?? entry.Item) as Item;
    const hash = named[this.shape.hashKey];
    if (hash?.S === undefined) throw new Error(`the floor moves string partition keys only; got ${JSON.stringify(hash)}`);
    named[this.shape.hashKey] = { S: `${prefix}${hash.S}` };
    return keyId(entryKey(entry, this.shape), this.shape);
  }

  /**
   * Keeps a condition where it evaluates as it did for the guard: on an item this replay already wrote, or when it
   * holds on a missing item. Drops it elsewhere (the floor item is not there); a condition check, which must have
   * one, gets one that holds on its fresh key.
   */
  private relaxCondition(entry: Record<string, any>, kind: WriteKind, alreadyWritten: boolean): void {
    const condition: string | undefined = entry.ConditionExpression;
    if (condition === undefined || alreadyWritten || holdsOnAMissingItem(condition)) return;
    if (kind === "check") {
      entry.ConditionExpression = ALWAYS_TRUE_ON_A_FRESH_KEY;
      entry.ExpressionAttributeNames = { ...entry.ExpressionAttributeNames, "#floorHashKey": this.shape.hashKey };
    } else delete entry.ConditionExpression;
    pruneExpressionAttributes(entry);
  }
}
