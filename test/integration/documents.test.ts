import { ConditionalCheckFailedException, DynamoDBClient, GetItemCommand, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { beforeAll, expect, inject, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { canonicalJson } from "../../packages/core/src/tool/canonical";
import { attempt } from "../../packages/core/src/dynamo/write";
import { testToolgate } from "../support/toolgate";

/** Every kind of JSON value an item holds, nested, and a key left undefined (which neither client stores). */
const item = (pk: string, sk: string) => ({
  pk,
  sk,
  text: "héllo",
  count: 42,
  ratio: 0.25,
  large: Number.MAX_SAFE_INTEGER,
  yes: true,
  nothing: null,
  nested: { list: [1, "two", { three: [3] }], empty: {}, none: [] },
  gone: undefined,
});

let toolgate: Toolgate;
let reference: DynamoDBDocumentClient;
let table: string;

const stored = async (pk: string, sk: string) =>
  (await toolgate.db.client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }))).Item;

beforeAll(async () => {
  toolgate = await testToolgate();
  table = toolgate.db.table;
  const plain = new DynamoDBClient({ endpoint: inject("dynamoEndpoint"), region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  reference = DynamoDBDocumentClient.from(plain, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
});

test("documents - an item put and read back is stored, and read, exactly as the SDK's document client stores and reads it", async () => {
  await toolgate.db.doc.send(new PutCommand({ TableName: table, Item: item("P#1", "ours") }));
  await reference.send(new PutCommand({ TableName: table, Item: item("P#1", "reference") }));
  const { sk: _ours, ...ours } = (await stored("P#1", "ours"))!;
  const { sk: _reference, ...theirs } = (await stored("P#1", "reference"))!;
  expect(ours).toEqual(theirs);
  expect(ours).not.toHaveProperty("gone");
  const read = await toolgate.db.doc.send(new GetCommand({ TableName: table, Key: { pk: "P#1", sk: "reference" }, ConsistentRead: true }));
  expect(read.Item).toEqual((await reference.send(new GetCommand({ TableName: table, Key: { pk: "P#1", sk: "reference" }, ConsistentRead: true }))).Item);
  const { gone: _gone, ...written } = item("P#1", "reference");
  expect(read.Item).toEqual(written);
  expect((await toolgate.db.doc.send(new GetCommand({ TableName: table, Key: { pk: "P#1", sk: "none" } }))).Item).toBeUndefined();
});

test("documents - an update's values and returned attributes, and a failed condition, are as the document client's", async () => {
  const update = (sk: string) =>
    new UpdateCommand({
      TableName: table,
      Key: { pk: "U#1", sk },
      UpdateExpression: "SET #n = :n, nested = :nested ADD version :one",
      ExpressionAttributeNames: { "#n": "name" },
      ExpressionAttributeValues: { ":n": "updated", ":nested": { a: [1, { b: ["c"] }] }, ":one": 1 },
      ReturnValues: "ALL_NEW",
    });
  const ours = await toolgate.db.doc.send(update("x"));
  const theirs = await reference.send(update("x"));
  expect(ours.Attributes).toEqual({ pk: "U#1", sk: "x", name: "updated", nested: { a: [1, { b: ["c"] }] }, version: 1 });
  expect(theirs.Attributes).toEqual({ ...ours.Attributes, version: 2 });
  const refused = toolgate.db.doc.send(
    new UpdateCommand({ TableName: table, Key: { pk: "U#1", sk: "x" }, UpdateExpression: "SET #n = :n", ConditionExpression: "version = :v", ExpressionAttributeNames: { "#n": "name" }, ExpressionAttributeValues: { ":n": "no", ":v": 1 } }),
  );
  await expect(refused).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  const removed = await toolgate.db.doc.send(new DeleteCommand({ TableName: table, Key: { pk: "U#1", sk: "x" }, ConditionExpression: "version = :v", ExpressionAttributeValues: { ":v": 2 }, ReturnValues: "ALL_OLD" }));
  expect(removed.Attributes).toMatchObject({ name: "updated", version: 2 });
  expect(await stored("U#1", "x")).toBeUndefined();
});

test("documents - a legacy parameter, which carries values outside expressions, is refused before anything is sent", async () => {
  const legacy = new PutCommand({ TableName: table, Item: item("L#1", "x"), Expected: { pk: { Exists: false } } });
  await expect(toolgate.db.doc.send(legacy)).rejects.toThrow("Expected is a legacy DynamoDB parameter");
  const filtered = new ScanCommand({ TableName: table, ScanFilter: { pk: { ComparisonOperator: "EQ", AttributeValueList: ["L#1"] } } });
  await expect(toolgate.db.doc.send(filtered)).rejects.toThrow("ScanFilter is a legacy DynamoDB parameter");
  expect(await stored("L#1", "x")).toBeUndefined();
});

test("documents - a query and a scan page through items with the keys they hand back", async () => {
  for (let n = 0; n < 5; n++) await reference.send(new PutCommand({ TableName: table, Item: { ...item("Q#1", `s${n}`), n } }));
  const seen: number[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await toolgate.db.doc.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk AND begins_with(sk, :s)", ExpressionAttributeValues: { ":pk": "Q#1", ":s": "s" }, Limit: 2, ExclusiveStartKey: start }),
    );
    for (const found of page.Items ?? []) {
      expect(found).toMatchObject({ text: "héllo", nested: { list: [1, "two", { three: [3] }] } });
      seen.push(found.n);
    }
    start = page.LastEvaluatedKey;
    if (start) expect(start).toEqual({ pk: "Q#1", sk: `s${seen.at(-1)}` });
  } while (start);
  expect(seen).toEqual([0, 1, 2, 3, 4]);
  const scanned = await toolgate.db.doc.send(new ScanCommand({ TableName: table, FilterExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "Q#1" } }));
  expect(scanned.Items?.map((found) => found.n).sort()).toEqual([0, 1, 2, 3, 4]);
});

test("documents - batches read and write items, and a transaction's writes and condition checks apply together or not at all", async () => {
  await toolgate.db.doc.send(
    new BatchWriteCommand({
      RequestItems: { [table]: [{ PutRequest: { Item: item("B#1", "a") } }, { PutRequest: { Item: item("B#1", "b") } }, { DeleteRequest: { Key: { pk: "P#1", sk: "ours" } } }] },
    }),
  );
  expect(await stored("P#1", "ours")).toBeUndefined();
  const batch = await toolgate.db.doc.send(
    new BatchGetCommand({ RequestItems: { [table]: { Keys: [{ pk: "B#1", sk: "a" }, { pk: "B#1", sk: "b" }, { pk: "B#1", sk: "none" }], ConsistentRead: true } } }),
  );
  expect(batch.Responses?.[table]?.map((found) => found.sk).sort()).toEqual(["a", "b"]);
  expect(batch.Responses?.[table]?.[0]).toMatchObject({ nested: { list: [1, "two", { three: [3] }] } });

  const transaction = (version: number) =>
    new TransactWriteCommand({
      TransactItems: [
        { ConditionCheck: { TableName: table, Key: { pk: "B#1", sk: "a" }, ConditionExpression: "#c = :c", ExpressionAttributeNames: { "#c": "count" }, ExpressionAttributeValues: { ":c": version } } },
        { Put: { TableName: table, Item: item("T#1", "put") } },
        { Update: { TableName: table, Key: { pk: "B#1", sk: "b" }, UpdateExpression: "SET label = :l", ExpressionAttributeValues: { ":l": { list: ["x"] } } } },
        { Delete: { TableName: table, Key: { pk: "Q#1", sk: "s0" } } },
      ],
    });
  await expect(toolgate.db.doc.send(transaction(41))).rejects.toBeInstanceOf(TransactionCanceledException);
  expect(await stored("T#1", "put")).toBeUndefined();
  expect(await stored("Q#1", "s0")).toBeDefined();
  await toolgate.db.doc.send(transaction(42));
  expect((await reference.send(new GetCommand({ TableName: table, Key: { pk: "B#1", sk: "b" }, ConsistentRead: true }))).Item).toMatchObject({ label: { list: ["x"] } });
  expect(await stored("T#1", "put")).toBeDefined();
  expect(await stored("Q#1", "s0")).toBeUndefined();
});

/** JSON the document client cannot store: numbers beyond DynamoDB's (and 2^60, beyond safe integers), objects with an empty key or "__proto__". */
const beyondTheSdk = () => ({
  huge: 1e308,
  tiny: 5e-324,
  negative: -1.5e200,
  exact: 2 ** 60,
  empty: { "": { n: 1e300 }, b: 1 },
  proto: JSON.parse('{"__proto__": {"x": 1}}'),
  list: [1e126, { "": [] }, -0],
});
const sameJson = (read: unknown) => expect(canonicalJson(read)).toBe(canonicalJson(beyondTheSdk()));

test("documents - JSON the document client cannot store is kept, and read back the same, by every command", async () => {
  await expect(reference.send(new PutCommand({ TableName: table, Item: { pk: "J#1", sk: "sdk", value: beyondTheSdk() } }))).rejects.toThrow();
  await toolgate.db.doc.send(new PutCommand({ TableName: table, Item: { pk: "J#1", sk: "put", value: beyondTheSdk() } }));
  sameJson((await toolgate.db.doc.send(new GetCommand({ TableName: table, Key: { pk: "J#1", sk: "put" }, ConsistentRead: true }))).Item?.value);

  const updated = await toolgate.db.doc.send(
    new UpdateCommand({ TableName: table, Key: { pk: "J#1", sk: "update" }, UpdateExpression: "SET #v = :v", ExpressionAttributeNames: { "#v": "value" }, ExpressionAttributeValues: { ":v": beyondTheSdk() }, ReturnValues: "ALL_NEW" }),
  );
  sameJson(updated.Attributes?.value);
  await toolgate.db.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { pk: "J#1", sk: "transaction", value: beyondTheSdk() } } }] }));
  await toolgate.db.doc.send(new BatchWriteCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { pk: "J#1", sk: "batch", value: beyondTheSdk() } } }] } }));

  const queried = await toolgate.db.doc.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "J#1" }, ConsistentRead: true }));
  expect(queried.Items?.map((found) => found.sk).sort()).toEqual(["batch", "put", "transaction", "update"]);
  for (const found of queried.Items ?? []) sameJson(found.value);
  const keys = ["put", "update", "transaction", "batch"].map((sk) => ({ pk: "J#1", sk }));
  const batch = await toolgate.db.doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }));
  for (const found of batch.Responses?.[table] ?? []) sameJson(found.value);

  const refused = await attempt(() => toolgate.db.doc.send(new PutCommand({ TableName: table, Item: { pk: "J#1", sk: "put" }, ConditionExpression: "attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure: "ALL_OLD" })));
  expect(refused.kind).toBe("refused");
  sameJson(refused.kind === "refused" ? refused.current[0]?.value : undefined);
});

test("documents - any JSON value, put or set by an update, reads back as the same JSON (property, against DynamoDB Local)", async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 8 }), async (value) => {
      const key = { pk: "J#2", sk: "value" };
      await toolgate.db.doc.send(new PutCommand({ TableName: table, Item: { ...key, value } }));
      const read = await toolgate.db.doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      expect(canonicalJson(read.Item?.value)).toBe(canonicalJson(value));
      const updated = await toolgate.db.doc.send(
        new UpdateCommand({ TableName: table, Key: key, UpdateExpression: "SET #v = :v", ExpressionAttributeNames: { "#v": "value" }, ExpressionAttributeValues: { ":v": [value] }, ReturnValues: "ALL_NEW" }),
      );
      expect(canonicalJson(updated.Attributes?.value)).toBe(canonicalJson([value]));
    }),
    { numRuns: 200 },
  );
});
