import { GetItemCommand, PutItemCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { performance } from "node:perf_hooks";
import { setTimeout as idle } from "node:timers/promises";
import { deleteItems } from "./floor";
import type { DynamoFloor } from "./floor";
import { inShuffledRounds, percentile } from "./support";
import type { Item } from "./table-shape";
import type { Note, Out } from "./support";

const WARMUP = 30;
const MEASURED = 300;
const PARTITION = "SPACING#bench";

const busy = (ms: number) => {
  const started = performance.now();
  while (performance.now() - started < ms);
};

/** Before the settle: nothing, idle time, or CPU work in this process. */
const WAITS = {
  right_after: () => undefined,
  after_3_ms_idle: () => idle(3),
  after_6_ms_idle: () => idle(6),
  after_3_ms_busy: () => busy(3),
} as const;

/**
 * How DynamoDB Local's answer to one request depends on when it comes: a call's settle (an UpdateItem of the item its
 * admission put) made right after the admission's three requests, or some ms later. Why the floors are also replayed spaced.
 */
export async function benchDynamoSpacing(floor: DynamoFloor, out: Out, note: Note) {
  const { client, shape } = floor;
  const table = shape.table;
  const key = (sort: string): Item => ({ [shape.hashKey]: { S: PARTITION }, ...(shape.rangeKey ? { [shape.rangeKey]: { S: sort } } : {}) });
  const written: Item[] = [key("GUARD")];
  let n = 0;
  const settleMs = async (wait: () => unknown) => {
    const call = `CALL#${n++}`;
    written.push(key(call));
    await Promise.all([
      client.send(new UpdateItemCommand({ TableName: table, Key: key("GUARD"), UpdateExpression: "SET seq = :seq", ExpressionAttributeValues: { ":seq": { N: String(n) } } })),
      client.send(new GetItemCommand({ TableName: table, Key: key("GUARD"), ConsistentRead: true })),
      client.send(new PutItemCommand({ TableName: table, Item: { ...key(call), status: { S: "running" }, text: { S: "x".repeat(400) } } })),
    ]);
    await wait();
    const started = performance.now();
    await client.send(
      new UpdateItemCommand({ TableName: table, Key: key(call), UpdateExpression: "SET #status = :done", ExpressionAttributeNames: { "#status": "status" }, ExpressionAttributeValues: { ":done": { S: "completed" } } }),
    );
    return performance.now() - started;
  };
  const names = Object.keys(WAITS) as Array<keyof typeof WAITS>;
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<keyof typeof WAITS, number[]>;
  for (let round = 0; round < WARMUP; round++) for (const name of names) await settleMs(WAITS[name]);
  await inShuffledRounds(names, MEASURED, async (name) => {
    await idle(2);
    samples[name].push(await settleMs(WAITS[name]));
  });
  for (const name of names) out(`dynamodb_local_settle_${name}_p50_ms`, percentile(samples[name], 50).toFixed(2));
  await deleteItems(client, table, written);
  note(
    `DynamoDB Local's spacing: ${MEASURED} settles each (an UpdateItem of the item just put), after a round of three concurrent requests ` +
      `(UpdateItem, GetItem, PutItem), right after it, after 3 or 6 ms idle, or after 3 ms of CPU work here; ${written.length} items removed after`,
  );
}
