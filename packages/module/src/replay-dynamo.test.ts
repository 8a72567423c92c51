import { CreateTableCommand, DescribeTimeToLiveCommand, DynamoDBClient, GetItemCommand, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { decodeJwt, createLocalJWKSet } from "jose";
import { ulid } from "ulid";
import { beforeAll, expect, inject, test } from "vitest";
import * as z from "zod";
import { CallSigner } from "@toolgate/core/executor";
import { defineModule, defineTool } from "./index.js";
import { dynamoReplayStore, REPLAY_TABLE } from "./replay-dynamo.js";

const URL_OF_MODULE = "https://abc.lambda-url.eu-west-1.on.aws/";
const signer = new CallSigner("replay-dynamo-signing-key-0123456789-0123");
const table = `replays_${ulid()}`;
/** Each container of a Lambda function has its own client, and its own memory. */
const containerClient = () => new DynamoDBClient({ endpoint: inject("dynamoEndpoint"), region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
const runs: string[] = [];

const stamp = defineTool({
  name: "stamp",
  description: "Stamps a letter.",
  parameters: z.object({ letter: z.string() }),
  execute: ({ letter }) => (runs.push(letter), `stamped ${letter}`),
});

/** The module as one container of its function serves it, its replay store the shared table. */
const container = () =>
  defineModule({
    id: "post",
    description: "Post.",
    tools: [stamp],
    toolgate: { keys: createLocalJWKSet(signer.jwks()) },
    url: URL_OF_MODULE,
    replayStore: dynamoReplayStore({ tableName: table, client: containerClient() }),
  });

let calls = 0;
async function signedCall(letter: string) {
  const call = { callId: `call_${++calls}`, tool: "stamp", arguments: { letter }, agentId: "agt_1", roleId: "rol_1" };
  const token = await signer.sign({ ...call, audience: URL_OF_MODULE, timeoutMs: 5_000 });
  const request = () => new Request(URL_OF_MODULE, { method: "POST", headers: { "content-type": "application/json", "toolgate-call": token }, body: JSON.stringify(call) });
  return { token, request };
}

const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });

beforeAll(async () => {
  const client = containerClient();
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: REPLAY_TABLE.hashKey, AttributeType: "S" }],
      KeySchema: [{ AttributeName: REPLAY_TABLE.hashKey, KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: REPLAY_TABLE.ttl, Enabled: true } }));
});

test("dynamoReplayStore - a token one container accepted is refused by another sharing the table, and the tool runs once; its id expires with the token", async () => {
  const [first, second] = [container(), container()];
  const { token, request } = await signedCall("to Alice");
  expect(await answer(await first.fetch(request()))).toEqual({ status: 200, body: { type: "text", content: "stamped to Alice" } });
  for (const replayedTo of [second, first, second])
    expect(await answer(await replayedTo.fetch(request()))).toEqual({ status: 401, body: { error: "unauthenticated", message: expect.stringContaining("token was already used") } });
  expect(runs.filter((letter) => letter === "to Alice")).toHaveLength(1);

  const { jti, exp } = decodeJwt(token);
  const stored = await containerClient().send(new GetItemCommand({ TableName: table, Key: { [REPLAY_TABLE.hashKey]: { S: jti! } } }));
  expect(stored.Item).toEqual({ [REPLAY_TABLE.hashKey]: { S: jti }, [REPLAY_TABLE.ttl]: { N: String(exp) } });
  const ttl = await containerClient().send(new DescribeTimeToLiveCommand({ TableName: table }));
  expect(ttl.TimeToLiveDescription?.AttributeName).toBe(REPLAY_TABLE.ttl);

  const fresh = await signedCall("to Bob");
  expect(await answer(await second.fetch(fresh.request()))).toMatchObject({ status: 200 });
});

test("dynamoReplayStore - the same token sent to two containers at once runs in exactly one of them", async () => {
  const containers = [container(), container(), container()];
  const { request } = await signedCall("to Carol");
  const answers = await Promise.all(containers.map(async (served) => (await served.fetch(request())).status));
  expect(answers.sort()).toEqual([200, 401, 401]);
  expect(runs.filter((letter) => letter === "to Carol")).toHaveLength(1);
});

test("dynamoReplayStore - without a table name or TOOLGATE_REPLAY_TABLE it says what it needs", () => {
  expect(() => dynamoReplayStore({ tableName: "" })).toThrow(/tableName, or set TOOLGATE_REPLAY_TABLE/);
});
