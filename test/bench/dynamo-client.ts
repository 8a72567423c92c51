import { Readable } from "node:stream";
import { performance } from "node:perf_hooks";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { Toolgate } from "@toolgate/core/toolgate";
import { inShuffledRounds, percentile } from "./support";
import type { Note, Out } from "./support";

const WARMUP = 2_000;
const ROUNDS = 200;
const PER_ROUND = 50;
const TABLE = "bench_client";
const ENDPOINT = "http://127.0.0.1:9";

/** An item as DynamoDB answers a GetItem, for every request (a PutItem's answer ignores it). */
const ANSWER = JSON.stringify({ Item: { pk: { S: "AGENT#a" }, sk: { S: "GUARD" }, version: { N: "41" }, window: { M: { started: { N: "1764300000000" }, calls: { N: "3" } } } } });

/** Answers each request at once, in place of the network: what is left is what the client itself costs the process. */
const instrument = (client: DynamoDBClient) =>
  client.middlewareStack.add(
    () => async () => ({
      response: { statusCode: 200, headers: { "content-type": "application/x-amz-json-1.0" }, body: Readable.from([Buffer.from(ANSWER)]) },
      output: undefined as never,
    }),
    { step: "deserialize", name: "benchAnswerAtOnce", priority: "low" },
  );

const callStart = (i: number) => ({
  pk: "AGENT#a",
  sk: `CALL#${String(i).padStart(8, "0")}`,
  tool: "bench_echo",
  status: "running",
  arguments: { i, text: `call ${i}` },
  startedAt: "2026-11-28T07:00:00.000Z",
  expiresAt: 1764300000 + i,
});

/**
 * What one DynamoDB request costs the process, network aside: toolgate's client against the SDK's document client with
 * default settings (the floor's), each sending the guard state's read and a call's start, interleaved.
 */
export async function benchDynamoClient(out: Out, note: Note) {
  const { db } = new Toolgate({ table: TABLE, endpoint: ENDPOINT, adminToken: "bench-client-admin-token", signingKey: "bench-client-signing-key-0123456789abcdef", instrument });
  const plain = new DynamoDBClient({ endpoint: ENDPOINT, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  instrument(plain);
  const document = DynamoDBDocumentClient.from(plain, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
  const Key = { pk: "AGENT#a", sk: "GUARD" };
  const clients = {
    toolgate: async (i: number) => {
      await db.doc.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }));
      await db.doc.send(new PutCommand({ TableName: TABLE, Item: callStart(i), ConditionExpression: "attribute_not_exists(pk)" }));
    },
    documentClient: async (i: number) => {
      await document.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }));
      await document.send(new PutCommand({ TableName: TABLE, Item: callStart(i), ConditionExpression: "attribute_not_exists(pk)" }));
    },
  };
  const samples = { toolgate: [] as number[], documentClient: [] as number[] };
  for (let i = 0; i < WARMUP; i++) for (const send of Object.values(clients)) await send(i);
  let i = 0;
  await inShuffledRounds(["toolgate", "documentClient"] as const, ROUNDS, async (name) => {
    const started = performance.now();
    for (let n = 0; n < PER_ROUND; n++) await clients[name](i++);
    samples[name].push(((performance.now() - started) * 1000) / (PER_ROUND * 2));
  });
  db.client.destroy();
  plain.destroy();
  out("dynamodb_client_request_us_toolgate", percentile(samples.toolgate, 50).toFixed(0));
  out("dynamodb_client_request_us_sdk_document_client", percentile(samples.documentClient, 50).toFixed(0));
  note(
    `dynamodb client: what one request costs the process with its answer given at once (no network), a GetItem and a call's start ` +
      `(PutItem) in turn, ${ROUNDS} rounds of ${PER_ROUND} pairs each, interleaved: toolgate's client (document commands sent as plain ` +
      `ones, each command's middleware resolved once) and the SDK's document client with default settings, as the floor sends its requests`,
  );
}
