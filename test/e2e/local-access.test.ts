// No open door on the machine: a command an agent runs here can reach every port npm start opens, so each one
// serves only who holds a secret of toolgate's (the admin token, or the local AWS key pair in the data dir).
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { Toolgate } from "@toolgate/core/toolgate";
import { startDynamoLocal } from "@toolgate/local/dynamo-local";
import { ensureTable } from "@toolgate/local/local-table";
import { generateAccessKeyPair } from "@toolgate/local/secrets";
import { afterAll, beforeAll, expect, test } from "vitest";
import { publishModuleEvent } from "../support/events";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { startLocalProcess } from "../support/local-process";
import type { AccessKeyPair, LocalProcess } from "../support/local-process";
import { ADMIN_TOKEN, SIGNING_KEY, api } from "../support/toolgate";
import { waitFor } from "../support/wait";

const OPS_SECRET = "ops-executor-secret-5d1c";

let home: string;
let dataDir: string;
let stack: LocalProcess;
let executor: Executor;
let attacker: Executor;

const http = (method: string, path: string, body?: unknown) => stack.request(method, path, stack.adminToken, body);

const tool = (name: string) => ({ type: "function", function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties: {} } } });

/** What `node -e "fetch(...)"` posts: the SDK's body and target, no signature. */
const unsigned = (detailType: string, detail: Record<string, unknown>) =>
  fetch(`${stack.url}/eventbridge/`, {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.1", "x-amz-target": "AWSEvents.PutEvents" },
    body: JSON.stringify({ Entries: [{ Source: "toolgate.modules", DetailType: detailType, Detail: JSON.stringify(detail) }] }),
  });

const dynamoEndpoint = (running: LocalProcess) => {
  const endpoint = running.output().match(/dynamodb-local: ready on (http:\/\/\S+)/)?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local listens:\n${running.output()}`);
  return endpoint;
};

const dynamoAs = (endpoint: string, credentials: AccessKeyPair) => new DynamoDBClient({ endpoint, region: "us-east-1", credentials });

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "toolgate-access-"));
  // A data dir toolgate creates itself.
  dataDir = join(home, "data");
  [executor, attacker] = await Promise.all([
    startExecutor(({ body }) => ({ body: { content: `${body?.tool} ran`, type: "text" } })),
    startExecutor(() => ({ body: { content: "stolen", type: "text" } })),
  ]);
  stack = await startLocalProcess(dataDir, { TOOLGATE_SECRET_OPS_KEY: OPS_SECRET });
}, 90_000);

afterAll(async () => {
  await stack?.stop("SIGTERM");
  await Promise.all([executor?.close(), attacker?.close()]);
  await rm(home, { recursive: true, force: true });
});

test("npm start - an unsigned module.loaded cannot move an admin's group to another executor, nor module.unloaded remove it; the signed client can put events", async () => {
  const registered = await http("PUT", "/groups/ops", {
    description: "Operations tools",
    executor: { type: "http", url: `${executor.url}/ops`, headers: { "x-api-key": { secret: "OPS_KEY" } } },
    tools: [tool("restart_server")],
  });
  expect(registered.status).toBe(201);
  const hijack = { module: "ops", toolGroupId: "ops", version: Date.now(), description: "Operations tools", tools: [tool("restart_server")], executor: { type: "http", url: attacker.url } };

  const loaded = await unsigned("module.loaded", hijack);
  const unloaded = await unsigned("module.unloaded", { module: "ops", version: Date.now() + 1 });
  const bearer = await fetch(`${stack.url}/eventbridge/`, {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.1", "x-amz-target": "AWSEvents.PutEvents", authorization: "Bearer not-the-admin-token" },
    body: JSON.stringify({ Entries: [{ Source: "toolgate.modules", DetailType: "module.loaded", Detail: JSON.stringify(hijack) }] }),
  });
  const forged = new EventBridgeClient({
    endpoint: `${stack.url}/eventbridge`,
    region: "us-east-1",
    credentials: { accessKeyId: stack.awsCredentials.accessKeyId, secretAccessKey: generateAccessKeyPair().secretAccessKey },
  });
  const forgedPut = forged.send(new PutEventsCommand({ Entries: [{ Source: "toolgate.modules", DetailType: "module.loaded", Detail: JSON.stringify(hijack) }] }));

  expect(loaded.status).toBe(403);
  expect(loaded.headers.get("x-amzn-errortype")).toBe("IncompleteSignatureException");
  expect(await loaded.json()).toEqual({
    __type: "IncompleteSignatureException",
    message: expect.stringContaining(`with the local access key pair in ${join(dataDir, "local-aws-credentials.json")}`),
  });
  expect(unloaded.status).toBe(403);
  expect(bearer.status).toBe(403);
  expect(bearer.headers.get("x-amzn-errortype")).toBe("UnrecognizedClientException");
  await expect(forgedPut).rejects.toMatchObject({ name: "InvalidSignatureException", $metadata: { httpStatusCode: 403 } });
  forged.destroy();

  // A signed event applied after them: had any of them been taken, it would have been applied by now.
  const sent = await publishModuleEvent(stack, "module.loaded", { module: "barrier", version: 1, description: "Signed.", tools: [tool("barrier_tool")], executor: { type: "http", url: executor.url } });
  expect(sent.FailedEntryCount).toBe(0);
  await waitFor(async () => ((await http("GET", "/modules/barrier")).body?.status === "loaded" ? true : undefined), "the signed module to load");

  const group = await http("GET", "/groups/ops");
  expect(group.status).toBe(200);
  expect(group.body).toMatchObject({ source: "api", executor: { type: "http", url: `${executor.url}/ops` } });
  expect((await http("GET", "/modules/ops")).status).toBe(404);

  const role = await http("POST", "/roles", { name: "operator", rolePrompt: "Run the servers.", toolGroups: ["ops"] });
  const agent = await http("POST", "/agents", { roleId: role.body.id });
  const call = await stack.request("POST", `/agents/${agent.body.agent.id}/calls`, agent.body.token, { tool: "restart_server", arguments: {} });
  expect(call.body).toMatchObject({ status: "completed", result: { content: "restart_server ran" } });
  expect(executor.requestsFor("restart_server").map((request) => request.headers["x-api-key"])).toEqual([OPS_SECRET]);
  expect(attacker.requests).toEqual([]);
});

test("npm start - the local key pair is saved to <data dir>/local-aws-credentials.json (600) in a data dir it made 700, and the banner shows how to sign with it", async () => {
  const file = join(dataDir, "local-aws-credentials.json");
  const saved = JSON.parse(await readFile(file, "utf8")) as AccessKeyPair;

  expect(saved).toEqual({ accessKeyId: expect.stringMatching(/^AKIA[A-Z0-9]{16}$/), secretAccessKey: expect.stringMatching(/^[A-Za-z0-9+/]{40}$/) });
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  expect((await stat(join(dataDir, "dynamodb"))).mode & 0o777).toBe(0o700);
  expect(stack.output()).toContain(`AWS keys:    generated and saved to ${file}`);
  expect(stack.output()).toContain(`aws events put-events --region us-east-1 --endpoint-url ${stack.url}/eventbridge`);
  expect(stack.output()).not.toContain(saved.secretAccessKey);
});

test("npm start - DynamoDB Local keeps toolgate's table under its key: any other key, the old placeholder too, sees no table and cannot write one", async () => {
  const endpoint = dynamoEndpoint(stack);
  const own = dynamoAs(endpoint, { ...stack.awsCredentials });
  const placeholder = dynamoAs(endpoint, { accessKeyId: "local", secretAccessKey: "local" });
  const stranger = dynamoAs(endpoint, generateAccessKeyPair());
  const otherIdSameSecret = dynamoAs(endpoint, { accessKeyId: "AKIA" + "0".repeat(16), secretAccessKey: stack.awsCredentials.secretAccessKey });
  try {
    expect((await own.send(new ListTablesCommand({}))).TableNames).toEqual(["toolgate"]);
    for (const other of [placeholder, stranger, otherIdSameSecret]) {
      expect((await other.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      await expect(other.send(new PutItemCommand({ TableName: "toolgate", Item: { pk: { S: "role#x" }, sk: { S: "role" } } }))).rejects.toMatchObject({
        name: "ResourceNotFoundException",
      });
    }
  } finally {
    for (const client of [own, placeholder, stranger, otherIdSameSecret]) client.destroy();
  }
});

test("npm start - a data dir from before (one shared database) keeps what it stored: on the first start it is moved under toolgate's key", async () => {
  const oldDir = join(home, "before");
  const dynamo = await startDynamoLocal({ dataDir: join(oldDir, "dynamodb") });
  const before = new Toolgate({ table: "toolgate", endpoint: dynamo.endpoint, adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY });
  let roleId: string;
  try {
    await ensureTable(before.db.client, "toolgate");
    await before.ready();
    const created = await api(before)("POST", "/roles", { body: { name: "kept", rolePrompt: "Survive the upgrade." } });
    expect(created.status).toBe(201);
    roleId = created.body.id;
  } finally {
    before.db.client.destroy();
    await dynamo.stop();
  }
  expect(await readdir(join(oldDir, "dynamodb"))).toContain("shared-local-instance.db");

  const upgraded = await startLocalProcess(oldDir, { TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN });
  try {
    const kept = await upgraded.request("GET", "/roles/by-name/kept", ADMIN_TOKEN);
    expect(kept.status).toBe(200);
    expect(kept.body.id).toBe(roleId);
    const files = await readdir(join(oldDir, "dynamodb"));
    expect(files).toContain(`${upgraded.awsCredentials.accessKeyId}_us-east-1.db`);
    expect(files).not.toContain("shared-local-instance.db");
    expect(upgraded.output()).toContain("dynamodb-local: moved the shared database to");

    // The old placeholder key reaches nothing now.
    const placeholder = dynamoAs(dynamoEndpoint(upgraded), { accessKeyId: "local", secretAccessKey: "local" });
    expect((await placeholder.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    await expect(placeholder.send(new CreateTableCommand({
      TableName: "toolgate",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }))).resolves.toBeDefined();
    placeholder.destroy();
    // A table of the same name made under another key is not toolgate's: toolgate still reads its own.
    expect((await upgraded.request("GET", "/roles/by-name/kept", ADMIN_TOKEN)).body.id).toBe(roleId);
  } finally {
    await upgraded.stop("SIGTERM");
  }
}, 120_000);
