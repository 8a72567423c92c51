import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterEach, expect, test } from "vitest";
import { type DynamoLocal, type DynamoLocalOptions, DynamoLocalStartError, JavaRequiredError, javaMajorVersion, startDynamoLocal } from "./dynamo-local";
import { freePort } from "./free-port";
import { generateAccessKeyPair } from "./secrets";
import type { AccessKeyPair } from "./secrets";
import { waitFor, isRunning } from "../../../test/support/wait";

const JAVA_TEST_TIMEOUT_MS = 60_000;
const started: DynamoLocal[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((dynamo) => dynamo.stop()));
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function start(dataDir?: string, options: Omit<DynamoLocalOptions, "dataDir"> = {}) {
  const dynamo = await startDynamoLocal({ dataDir, ...options });
  started.push(dynamo);
  return dynamo;
}

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-dynamo-local-"));
  tempDirs.push(dir);
  return dir;
}

function clientFor(dynamo: DynamoLocal, credentials: AccessKeyPair = { accessKeyId: "local", secretAccessKey: "local" }) {
  return new DynamoDBClient({ endpoint: dynamo.endpoint, region: "us-east-1", credentials });
}

const table = "toolgate-test";
const createTable = new CreateTableCommand({
  TableName: table,
  AttributeDefinitions: [
    { AttributeName: "pk", AttributeType: "S" },
    { AttributeName: "sk", AttributeType: "S" },
  ],
  KeySchema: [
    { AttributeName: "pk", KeyType: "HASH" },
    { AttributeName: "sk", KeyType: "RANGE" },
  ],
  BillingMode: "PAY_PER_REQUEST",
});
const item = { pk: { S: "group#chrome" }, sk: { S: "group" }, description: { S: "Drives a browser" } };
const getItem = new GetItemCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true });



const lineContaining = (lines: string[], text: string) => () => lines.find((line) => line.includes(text));

test(
  "startDynamoLocal - when another process takes its port before java binds it, starts on another port",
  async () => {
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, "127.0.0.1", listening));
    const takenPort = (taken.address() as AddressInfo).port;
    const lines: string[] = [];
    const ports = [takenPort];
    try {
      const dynamo = await start(undefined, { log: (line) => lines.push(line), choosePort: async () => ports.shift() ?? freePort() });
      expect(dynamo.port).not.toBe(takenPort);
      expect(lines.some((line) => line.includes(`port ${takenPort} was taken`)), lines.join("\n")).toBe(true);
      expect((await clientFor(dynamo).send(new ListTablesCommand({}))).TableNames).toEqual([]);
    } finally {
      taken.close();
    }
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - runs in memory and serves CreateTable, PutItem and GetItem",
  async () => {
    const dynamo = await start();
    const client = clientFor(dynamo);

    await client.send(createTable);
    await client.send(new PutItemCommand({ TableName: table, Item: item }));
    const { Item } = await client.send(getItem);
    client.destroy();

    expect(dynamo.endpoint).toBe(`http://127.0.0.1:${dynamo.port}`);
    expect(Item).toEqual(item);
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - stop ends the java process and can be called again",
  async () => {
    const dynamo = await start();
    expect(isRunning(dynamo.pid)).toBe(true);

    await dynamo.stop();
    await dynamo.stop();

    expect(() => process.kill(dynamo.pid, 0)).toThrow();
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - keeps data written to dataDir across a restart",
  async () => {
    const dataDir = join(await tempDir(), "nested", "db");

    const first = await start(dataDir);
    const writer = clientFor(first);
    await writer.send(createTable);
    await writer.send(new PutItemCommand({ TableName: table, Item: item }));
    writer.destroy();
    await first.stop();

    const second = await start(dataDir);
    const reader = clientFor(second);
    const { Item } = await reader.send(getItem);
    reader.destroy();

    expect(Item).toEqual(item);
  },
  JAVA_TEST_TIMEOUT_MS,
);

test("startDynamoLocal - refuses a Java older than 17 with JavaRequiredError", async () => {
  const fakeJava = join(await tempDir(), "java");
  await writeFile(fakeJava, `#!/bin/sh\necho 'openjdk version "11.0.2" 2019-01-15' >&2\n`);
  await chmod(fakeJava, 0o755);

  const failure = await startDynamoLocal({ javaCommand: fakeJava }).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(JavaRequiredError);
  const { message } = failure as JavaRequiredError;
  expect(message).toContain("Java 17 or newer");
  expect(message).toContain("Java 11");
  expect(message).toContain('openjdk version "11.0.2"');
  expect(message).toContain("apt-get install -y openjdk-17-jre-headless");
  expect(message).toContain("brew install openjdk@17");
});

test("startDynamoLocal - refuses a missing java command with JavaRequiredError", async () => {
  const missing = join(await tempDir(), "no-such-java");

  const failure = await startDynamoLocal({ javaCommand: missing }).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(JavaRequiredError);
  expect((failure as Error).message).toContain("no `" + missing + "` command was found");
});

test("startDynamoLocal - reports the last output when DynamoDB Local exits during start-up", async () => {
  const binDir = await tempDir();
  await writeFile(
    join(binDir, "java"),
    `#!/bin/sh\nif [ "$1" = "-version" ]; then echo 'openjdk version "17.0.2"' >&2; exit 0; fi\necho 'Could not bind the port' >&2\nexit 3\n`,
  );
  await chmod(join(binDir, "java"), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${binDir}:${path}`;

  const failure = await startDynamoLocal({}).catch((error: unknown) => error).finally(() => (process.env.PATH = path));

  expect(failure).toBeInstanceOf(DynamoLocalStartError);
  expect((failure as Error).message).toContain("it exited with code 3");
  expect((failure as Error).message).toContain("Could not bind the port");
});

test.each([
  ['openjdk version "17.0.15" 2025-04-15', 17],
  ['java version "1.8.0_292"', 8],
  ['openjdk version "21" 2023-09-19', 21],
  ['openjdk version "22-ea" 2024-03-19', 22],
  ["something else entirely", undefined],
])("javaMajorVersion - reads %s as %s", (output, major) => {
  expect(javaMajorVersion(output)).toBe(major);
});

test(
  "startDynamoLocal - restarts a DynamoDB Local killed with SIGKILL on the same port and data, and the pid file names the new process",
  async () => {
    const dataDir = await tempDir();
    const lines: string[] = [];
    const dynamo = await start(dataDir, { log: (line) => lines.push(line), output: () => {} });
    const client = clientFor(dynamo);
    await client.send(createTable);
    await client.send(new PutItemCommand({ TableName: table, Item: item }));
    const killed = dynamo.pid;

    process.kill(killed, "SIGKILL");
    await waitFor(lineContaining(lines, "restarted on"), "the restart");
    const { Item } = await client.send(getItem);
    client.destroy();

    expect(lines).toContain("dynamodb-local: exited unexpectedly (killed by SIGKILL); restarting on the same data");
    expect(dynamo.pid).not.toBe(killed);
    expect(isRunning(dynamo.pid)).toBe(true);
    expect(Item).toEqual(item);
    expect((await readFile(join(dataDir, "dynamodb-local.pid"), "utf8")).trim()).toBe(String(dynamo.pid));
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - in memory, a restart comes back empty and runs onRestart",
  async () => {
    let restarts = 0;
    const dynamo = await start(undefined, { onRestart: () => void restarts++ });
    const client = clientFor(dynamo);
    await client.send(createTable);

    process.kill(dynamo.pid, "SIGKILL");
    await waitFor(() => (restarts > 0 ? restarts : undefined), "onRestart");
    const { TableNames } = await client.send(new ListTablesCommand({}));
    client.destroy();

    expect(restarts).toBe(1);
    expect(TableNames).toEqual([]);
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - stop after a restart ends the current process and does not start another",
  async () => {
    const lines: string[] = [];
    const dynamo = await start(undefined, { log: (line) => lines.push(line), output: () => {} });
    process.kill(dynamo.pid, "SIGKILL");
    await waitFor(lineContaining(lines, "restarted on"), "the restart");
    const current = dynamo.pid;

    await dynamo.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(isRunning(current)).toBe(false);
    expect(lines.filter((line) => line.includes("exited unexpectedly"))).toHaveLength(1);
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - gives up and says so when it keeps crashing more than maxRestarts times within the window",
  async () => {
    const dataDir = await tempDir();
    const lines: string[] = [];
    const dynamo = await start(dataDir, { log: (line) => lines.push(line), output: () => {}, restart: { maxRestarts: 1, baseDelayMs: 10 } });
    process.kill(dynamo.pid, "SIGKILL");
    await waitFor(lineContaining(lines, "restarted on"), "the restart");

    process.kill(dynamo.pid, "SIGKILL");
    const gaveUp = await waitFor(lineContaining(lines, "gave up"), "giving up");

    expect(gaveUp).toBe("dynamodb-local: gave up after 1 restart within 60 s; stop toolgate and start it again");
    expect(await readFile(join(dataDir, "dynamodb-local.pid"), "utf8").catch(() => "absent")).toBe("absent");
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - with credentials, the data is kept under their key: another key id, whatever its secret, sees no table",
  async () => {
    const dataDir = await tempDir();
    const keys = generateAccessKeyPair();
    const dynamo = await start(dataDir, { credentials: keys });
    const owner = clientFor(dynamo, keys);
    await owner.send(createTable);
    await owner.send(new PutItemCommand({ TableName: table, Item: item }));
    const other = clientFor(dynamo, generateAccessKeyPair());
    const placeholder = clientFor(dynamo);

    expect((await other.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    expect((await placeholder.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    await expect(other.send(getItem)).rejects.toMatchObject({ name: "ResourceNotFoundException" });
    expect((await owner.send(getItem)).Item).toEqual(item);
    expect(await readdir(dataDir)).toContain(`${keys.accessKeyId}_us-east-1.db`);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const client of [owner, other, placeholder]) client.destroy();
  },
  JAVA_TEST_TIMEOUT_MS,
);

test(
  "startDynamoLocal - a data dir written with one shared database is moved under the key on the first start with credentials, nothing lost",
  async () => {
    const dataDir = await tempDir();
    const lines: string[] = [];
    const before = await start(dataDir);
    const writer = clientFor(before);
    await writer.send(createTable);
    await writer.send(new PutItemCommand({ TableName: table, Item: item }));
    writer.destroy();
    await before.stop();
    expect(await readdir(dataDir)).toContain("shared-local-instance.db");

    const keys = generateAccessKeyPair();
    const after = await start(dataDir, { credentials: keys, log: (line) => lines.push(line) });
    const reader = clientFor(after, keys);
    const { Item } = await reader.send(getItem);
    reader.destroy();

    expect(Item).toEqual(item);
    expect(await readdir(dataDir)).not.toContain("shared-local-instance.db");
    expect(lines).toContain(
      `dynamodb-local: moved the shared database to ${join(dataDir, `${keys.accessKeyId}_us-east-1.db`)}, where DynamoDB Local keeps the data of toolgate's access key`,
    );
  },
  JAVA_TEST_TIMEOUT_MS,
);
