import type { AddressInfo } from "node:net";
import { EventBridgeClient, ListRulesCommand, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { serve } from "@hono/node-server";
import { Sha256 } from "@smithy/core/checksum";
import { HttpRequest } from "@smithy/core/protocols";
import { SignatureV4 } from "@smithy/signature-v4";
import { MODULE_EVENT_SOURCE, MODULE_EVENTS_PATTERN, ModuleEventType } from "@toolgate/core/module/events";
import { afterEach, describe, expect, test } from "vitest";
import {
  type EventBridgeEnvelope,
  type EventBridgeOptions,
  type EventPattern,
  type EventRule,
  eventBridgeApp,
  matchesPattern,
  retryDelayMs,
} from "./eventbridge";
import { generateAccessKeyPair } from "./secrets";
import type { AccessKeyPair } from "./secrets";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const ADMIN_TOKEN = "eventbridge-test-admin-token";
const JSON_TYPE = "application/x-amz-json-1.1";

/** Without `retry`, the bus uses its default policy. Its client signs with the key pair the bus accepts. */
async function startBus(rules: EventRule[], retry?: EventBridgeOptions["retry"]) {
  const logs: string[] = [];
  const credentials = generateAccessKeyPair();
  const bus = eventBridgeApp({
    rules,
    access: { credentials, adminToken: ADMIN_TOKEN, where: "in the test" },
    region: "us-east-1",
    accountId: "123456789012",
    log: (line) => logs.push(line),
    retry,
  });
  const server = serve({ fetch: bus.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/eventbridge`;
  const clients: EventBridgeClient[] = [];
  const clientWith = (keys: AccessKeyPair) => {
    const client = new EventBridgeClient({ region: "us-east-1", endpoint: url, credentials: keys });
    clients.push(client);
    return client;
  };
  const client = clientWith(credentials);
  closers.push(async () => {
    for (const each of clients) each.destroy();
    await bus.drain();
    await new Promise((resolve) => server.close(resolve));
  });
  return { client, clientWith, credentials, url, logs, drain: bus.drain };
}

/** The body and headers the SDK sends for PutEvents, before it signs them. */
const putEventsRequest = (url: string, entries: object[]) => {
  const { hostname, port, pathname, host } = new URL(`${url}/`);
  return new HttpRequest({
    method: "POST",
    protocol: "http:",
    hostname,
    port: Number(port),
    path: pathname,
    headers: { host, "content-type": JSON_TYPE, "x-amz-target": "AWSEvents.PutEvents" },
    body: JSON.stringify({ Entries: entries }),
  });
};

/** Signs as the SDK does (its own signer), at the given time, and sends the request with fetch. */
async function sendSigned(request: HttpRequest, credentials: AccessKeyPair, signingDate: Date, body = request.body as string) {
  const signed = await new SignatureV4({ credentials, region: "us-east-1", service: "events", sha256: Sha256 }).sign(request, { signingDate });
  const { host: _host, ...headers } = signed.headers;
  return fetch(`http://${request.hostname}:${request.port}${request.path}`, { method: "POST", headers, body });
}

function failingTimes(failures: number, error = "table busy") {
  let calls = 0;
  const rule: EventRule = {
    name: "flaky",
    pattern: MODULE_EVENTS_PATTERN,
    deliver: async () => {
      calls++;
      if (calls <= failures) throw new Error(error);
    },
  };
  return { rule, calls: () => calls };
}

const moduleEntry = { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "{}" };

function arrayDepth(value: unknown): number {
  let depth = 0;
  for (let node = value; Array.isArray(node); node = node[0]) depth++;
  return depth;
}

function recorder(name: string, pattern: EventPattern) {
  const received: EventBridgeEnvelope[] = [];
  const rule: EventRule = { name, pattern, deliver: async (event) => void received.push(event) };
  return { rule, received };
}

const loaded = {
  module: "chrome",
  version: 3,
  description: "Drives a browser",
  tools: [{ type: "function", function: { name: "open_page", description: "Opens a page", parameters: { type: "object" } } }],
};

describe("eventBridgeApp", () => {
  test("eventBridgeApp - delivers a matching module.loaded event as an EventBridge envelope", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain } = await startBus([modules.rule]);

    const result = await client.send(
      new PutEventsCommand({
        Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: JSON.stringify(loaded), Resources: ["arn:x"] }],
      }),
    );
    await drain();

    expect(result.FailedEntryCount).toBe(0);
    const eventId = result.Entries?.[0]?.EventId;
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(modules.received).toEqual([
      {
        version: "0",
        id: eventId,
        "detail-type": "module.loaded",
        source: "toolgate.modules",
        account: "123456789012",
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
        region: "us-east-1",
        resources: ["arn:x"],
        detail: loaded,
      },
    ]);
  });

  test("eventBridgeApp - uses the entry's Time for the envelope", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain } = await startBus([modules.rule]);

    await client.send(
      new PutEventsCommand({
        Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Unloaded, Detail: "{}", Time: new Date("2024-05-06T07:08:09Z") }],
      }),
    );
    await drain();

    expect(modules.received[0]?.time).toBe("2024-05-06T07:08:09Z");
  });

  test("eventBridgeApp - accepts an event no rule matches without delivering it", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain } = await startBus([modules.rule]);

    const result = await client.send(
      new PutEventsCommand({ Entries: [{ Source: "someone.else", DetailType: ModuleEventType.Loaded, Detail: JSON.stringify(loaded) }] }),
    );
    await drain();

    expect(result.FailedEntryCount).toBe(0);
    expect(result.Entries?.[0]?.EventId).toBeTruthy();
    expect(modules.received).toEqual([]);
  });

  test("eventBridgeApp - fails a malformed entry on its own and delivers the good one in the same batch", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain } = await startBus([modules.rule]);

    const result = await client.send(
      new PutEventsCommand({
        Entries: [
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "not json" },
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: JSON.stringify(loaded) },
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "[1, 2]" },
          { DetailType: ModuleEventType.Loaded, Detail: "{}" },
        ],
      }),
    );
    await drain();

    expect(result.FailedEntryCount).toBe(3);
    expect(result.Entries).toEqual([
      { ErrorCode: "MalformedDetail", ErrorMessage: "Detail is malformed." },
      { EventId: expect.any(String) },
      { ErrorCode: "MalformedDetail", ErrorMessage: "Detail is malformed." },
      { ErrorCode: "InvalidArgument", ErrorMessage: expect.stringContaining("Source") },
    ]);
    expect(modules.received.map((event) => event.id)).toEqual([result.Entries?.[1]?.EventId]);
  });

  test("eventBridgeApp - the SDK throws ValidationException for more than 10 entries or none", async () => {
    const { client } = await startBus([]);
    const entry = { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "{}" };

    await expect(client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry) }))).rejects.toMatchObject({
      name: "ValidationException",
      $metadata: { httpStatusCode: 400 },
    });
    await expect(client.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({ name: "ValidationException" });
  });

  test("eventBridgeApp - the SDK throws ValidationException when the entries exceed 256 KB", async () => {
    const { client } = await startBus([]);
    const big = JSON.stringify({ padding: "x".repeat(256 * 1024) });

    await expect(
      client.send(new PutEventsCommand({ Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: big }] })),
    ).rejects.toMatchObject({ name: "ValidationException", message: expect.stringContaining("over the limit") });
  });

  test("eventBridgeApp - the SDK throws UnknownOperationException for operations other than PutEvents", async () => {
    const { client } = await startBus([]);

    await expect(client.send(new ListRulesCommand({}))).rejects.toMatchObject({ name: "UnknownOperationException" });
  });

  test("eventBridgeApp - answers a malformed body with SerializationException in the AWS JSON error shape", async () => {
    const { url } = await startBus([]);

    const response = await fetch(url, {
      method: "POST",
      headers: { "x-amz-target": "AWSEvents.PutEvents", "content-type": "application/x-amz-json-1.1", authorization: `Bearer ${ADMIN_TOKEN}` },
      body: "{ not json",
    });

    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/x-amz-json-1.1");
    expect(response.headers.get("x-amzn-errortype")).toBe("SerializationException");
    expect(await response.json()).toEqual({ __type: "SerializationException", message: expect.any(String) });
  });

  test("eventBridgeApp - accepts the path with and without a trailing slash", async () => {
    const { url } = await startBus([]);
    const body = JSON.stringify({ Entries: [{ Source: "a", DetailType: "b", Detail: "{}" }] });
    const headers = { "x-amz-target": "AWSEvents.PutEvents", "content-type": "application/x-amz-json-1.1", authorization: `Bearer ${ADMIN_TOKEN}` };

    for (const path of [url, `${url}/`]) {
      const response = await fetch(path, { method: "POST", headers, body });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ FailedEntryCount: 0, Entries: [{ EventId: expect.any(String) }] });
    }
  });

  test("eventBridgeApp - retries a failing delivery until it succeeds", async () => {
    let calls = 0;
    const flaky: EventRule = {
      name: "flaky",
      pattern: MODULE_EVENTS_PATTERN,
      deliver: async () => {
        calls++;
        if (calls < 3) throw new Error("table busy");
      },
    };
    const { client, drain, logs } = await startBus([flaky]);

    await client.send(new PutEventsCommand({ Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "{}" }] }));
    await drain();

    expect(calls).toBe(3);
    expect(logs).toEqual([]);
  });

  test("eventBridgeApp - gives up after the last attempt and logs the rule and event id", async () => {
    let calls = 0;
    const broken: EventRule = {
      name: "module-handler",
      pattern: MODULE_EVENTS_PATTERN,
      deliver: async () => {
        calls++;
        throw new Error("handler exploded");
      },
    };
    const { client, drain, logs } = await startBus([broken], { attempts: 4, baseDelayMs: 1 });

    const result = await client.send(
      new PutEventsCommand({ Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: "{}" }] }),
    );
    await drain();

    expect(result.FailedEntryCount).toBe(0);
    expect(calls).toBe(4);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain("module-handler");
    expect(logs[0]).toContain(result.Entries?.[0]?.EventId);
    expect(logs[0]).toContain("handler exploded");
  });

  test("eventBridgeApp - delivers to each matching rule by its detail pattern", async () => {
    const chrome = recorder("chrome", { source: [MODULE_EVENT_SOURCE], detail: { module: ["chrome"] } });
    const newer = recorder("newer", { detail: { version: [3, 4] } });
    const { client, drain } = await startBus([chrome.rule, newer.rule]);

    const detail = (module: string, version: number) => JSON.stringify({ ...loaded, module, version });
    await client.send(
      new PutEventsCommand({
        Entries: [
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: detail("chrome", 3) },
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: detail("search", 1) },
          { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: detail("search", 4) },
        ],
      }),
    );
    await drain();

    expect(chrome.received.map((event) => [event.detail.module, event.detail.version])).toEqual([["chrome", 3]]);
    expect(newer.received.map((event) => [event.detail.module, event.detail.version])).toEqual([
      ["chrome", 3],
      ["search", 4],
    ]);
  });

  test("eventBridgeApp - delivers an event whose Detail nests 20,000 arrays deep without throwing", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain, logs } = await startBus([modules.rule]);
    const depth = 20_000;
    const deep = `{"nested":${"[".repeat(depth)}${"]".repeat(depth)}}`;

    const result = await client.send(new PutEventsCommand({ Entries: [{ ...moduleEntry, Detail: deep }] }));
    await drain();
    const after = await client.send(new PutEventsCommand({ Entries: [moduleEntry] }));
    await drain();

    expect(result.FailedEntryCount).toBe(0);
    expect(after.FailedEntryCount).toBe(0);
    expect(logs).toEqual([]);
    expect(modules.received).toHaveLength(2);
    expect(arrayDepth(modules.received[0]!.detail.nested)).toBe(depth);
  });

  test("eventBridgeApp - gives each rule its own copy of the event", async () => {
    const mutating: EventRule = {
      name: "mutating",
      pattern: MODULE_EVENTS_PATTERN,
      deliver: async (event) => {
        event.detail.module = "changed";
        event.resources.push("arn:changed");
      },
    };
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain } = await startBus([mutating, modules.rule]);

    await client.send(new PutEventsCommand({ Entries: [{ ...moduleEntry, Detail: JSON.stringify(loaded), Resources: ["arn:x"] }] }));
    await drain();

    expect(modules.received[0]).toMatchObject({ detail: loaded, resources: ["arn:x"] });
  });

  test("eventBridgeApp - by default retries a delivery that failed four times and delivers it on the fifth attempt", async () => {
    const flaky = failingTimes(4);
    const { client, drain, logs } = await startBus([flaky.rule]);

    await client.send(new PutEventsCommand({ Entries: [moduleEntry] }));
    await drain();

    expect(flaky.calls()).toBe(5);
    expect(logs).toEqual([]);
  });

  test("eventBridgeApp - a delivery that fails twice then succeeds is retried with delays capped at maxDelayMs", async () => {
    const flaky = failingTimes(2);
    const { client, drain, logs } = await startBus([flaky.rule], { attempts: 10, baseDelayMs: 2_000, maxDelayMs: 20 });

    const began = Date.now();
    await client.send(new PutEventsCommand({ Entries: [moduleEntry] }));
    await drain();

    expect(flaky.calls()).toBe(3);
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(logs).toEqual([]);
  });

  test("eventBridgeApp - gives up after the default 10 attempts and logs it once", async () => {
    const broken = failingTimes(Number.POSITIVE_INFINITY, "handler exploded");
    const { client, drain, logs } = await startBus([broken.rule], { baseDelayMs: 1, maxDelayMs: 2 });

    const result = await client.send(new PutEventsCommand({ Entries: [moduleEntry] }));
    await Promise.race([drain(), new Promise((resolve) => setTimeout(resolve, 10_000))]);

    expect(broken.calls()).toBe(10);
    expect(logs).toEqual([
      `eventbridge: rule flaky gave up on event ${result.Entries?.[0]?.EventId} (module.loaded) after 10 attempts: handler exploded`,
    ]);
  });
});

describe("eventBridgeApp - who may put events", () => {
  const entry = { Source: MODULE_EVENT_SOURCE, DetailType: ModuleEventType.Loaded, Detail: JSON.stringify(loaded) };

  test("eventBridgeApp - an unsigned PutEvents is refused 403 IncompleteSignatureException in AWS's shape, and no rule gets it", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { url, drain, logs } = await startBus([modules.rule]);

    const response = await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": JSON_TYPE, "x-amz-target": "AWSEvents.PutEvents" },
      body: JSON.stringify({ Entries: [entry] }),
    });
    await drain();

    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe(JSON_TYPE);
    expect(response.headers.get("x-amzn-errortype")).toBe("IncompleteSignatureException");
    expect(await response.json()).toEqual({
      __type: "IncompleteSignatureException",
      message: expect.stringMatching(/^The request is not signed\. Sign it .* with the local access key pair in the test, or send the admin token/),
    });
    expect(modules.received).toEqual([]);
    expect(logs).toEqual(["eventbridge: refused a request (IncompleteSignatureException); nothing was put"]);
  });

  test("eventBridgeApp - the SDK signing with the wrong secret throws InvalidSignatureException (403), and no rule gets the event", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { clientWith, credentials, drain } = await startBus([modules.rule]);

    const wrongSecret = clientWith({ accessKeyId: credentials.accessKeyId, secretAccessKey: generateAccessKeyPair().secretAccessKey });
    await expect(wrongSecret.send(new PutEventsCommand({ Entries: [entry] }))).rejects.toMatchObject({
      name: "InvalidSignatureException",
      message: expect.stringContaining("does not match"),
      $metadata: { httpStatusCode: 403 },
    });
    await drain();

    expect(modules.received).toEqual([]);
  });

  test("eventBridgeApp - the SDK signing with an access key id it does not know throws UnrecognizedClientException (403)", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { clientWith, drain } = await startBus([modules.rule]);

    await expect(clientWith(generateAccessKeyPair()).send(new PutEventsCommand({ Entries: [entry] }))).rejects.toMatchObject({
      name: "UnrecognizedClientException",
      $metadata: { httpStatusCode: 403 },
    });
    await drain();

    expect(modules.received).toEqual([]);
  });

  test("eventBridgeApp - a request signed 10 minutes ago is refused as expired; the same request signed now is put", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { url, credentials, drain } = await startBus([modules.rule]);

    const replayed = await sendSigned(putEventsRequest(url, [entry]), credentials, new Date(Date.now() - 10 * 60_000));
    await drain();
    expect(replayed.status).toBe(403);
    expect(replayed.headers.get("x-amzn-errortype")).toBe("InvalidSignatureException");
    expect(((await replayed.json()) as { message: string }).message).toMatch(/^Signature expired: its X-Amz-Date \d{8}T\d{6}Z is more than 5 minutes/);
    expect(modules.received).toEqual([]);

    const fresh = await sendSigned(putEventsRequest(url, [entry]), credentials, new Date());
    await drain();
    expect(fresh.status).toBe(200);
    expect(modules.received).toHaveLength(1);
  });

  test("eventBridgeApp - a body changed after it was signed is refused InvalidSignatureException", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { url, credentials, drain } = await startBus([modules.rule]);
    const hijacked = JSON.stringify({ Entries: [{ ...entry, Detail: JSON.stringify({ ...loaded, executor: { type: "http", url: "http://attacker.test/" } }) }] });

    const response = await sendSigned(putEventsRequest(url, [entry]), credentials, new Date(), hijacked);
    await drain();

    expect(response.status).toBe(403);
    expect(response.headers.get("x-amzn-errortype")).toBe("InvalidSignatureException");
    expect(modules.received).toEqual([]);
  });

  test("eventBridgeApp - the SDK signing with the bus's key pair puts the event and it is delivered", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { client, drain, logs } = await startBus([modules.rule]);

    const result = await client.send(new PutEventsCommand({ Entries: [entry] }));
    await drain();

    expect(result.FailedEntryCount).toBe(0);
    expect(modules.received.map((event) => event.detail)).toEqual([loaded]);
    expect(logs).toEqual([]);
  });

  test("eventBridgeApp - the admin token as a bearer token puts the event; another bearer token is refused UnrecognizedClientException", async () => {
    const modules = recorder("modules", MODULE_EVENTS_PATTERN);
    const { url, drain } = await startBus([modules.rule]);
    const put = (token: string) =>
      fetch(`${url}/`, {
        method: "POST",
        headers: { "content-type": JSON_TYPE, "x-amz-target": "AWSEvents.PutEvents", authorization: `Bearer ${token}` },
        body: JSON.stringify({ Entries: [entry] }),
      });

    const refused = await put(`${ADMIN_TOKEN}x`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-amzn-errortype")).toBe("UnrecognizedClientException");
    const accepted = await put(ADMIN_TOKEN);
    await drain();

    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ FailedEntryCount: 0, Entries: [{ EventId: expect.any(String) }] });
    expect(modules.received).toHaveLength(1);
  });
});

describe("retryDelayMs", () => {
  const policy = { attempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };

  test("retryDelayMs - doubles from baseDelayMs with jitter between half and all of it, capped at maxDelayMs", () => {
    const lowest = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, policy, () => 0));
    const highest = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, policy, () => 1));

    expect(lowest).toEqual([50, 100, 200, 400, 500, 500]);
    expect(highest).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});

describe("matchesPattern", () => {
  const event = (detail: Record<string, unknown>, source = "toolgate.modules", detailType = "module.loaded"): EventBridgeEnvelope => ({
    version: "0",
    id: "1",
    "detail-type": detailType,
    source,
    account: "0",
    time: "2024-01-01T00:00:00Z",
    region: "us-east-1",
    resources: [],
    detail,
  });

  test.each<[string, EventPattern, EventBridgeEnvelope, boolean]>([
    ["empty pattern matches everything", {}, event({}), true],
    ["source in list", { source: ["a", "toolgate.modules"] }, event({}), true],
    ["source not in list", { source: ["a"] }, event({}), false],
    ["detail-type not in list", { detailType: ["module.unloaded"] }, event({}), false],
    ["nested exact value", { detail: { executor: { type: ["http"] } } }, event({ executor: { type: "http" } }), true],
    ["nested value differs", { detail: { executor: { type: ["http"] } } }, event({ executor: { type: "native" } }), false],
    ["nested object missing", { detail: { executor: { type: ["http"] } } }, event({}), false],
    ["array field matches any element", { detail: { tags: ["b"] } }, event({ tags: ["a", "b"] }), true],
    ["values are not coerced", { detail: { version: ["3"] } }, event({ version: 3 }), false],
    ["prefix", { detail: { module: [{ prefix: "chr" }] } }, event({ module: "chrome" }), true],
    ["exists true", { detail: { toolGroupId: [{ exists: true }] } }, event({ toolGroupId: "g" }), true],
    ["exists false", { detail: { toolGroupId: [{ exists: false }] } }, event({}), true],
    ["exists false, field present", { detail: { toolGroupId: [{ exists: false }] } }, event({ toolGroupId: "g" }), false],
    ["anything-but value", { detail: { module: [{ "anything-but": "chrome" }] } }, event({ module: "search" }), true],
    ["anything-but list", { detail: { module: [{ "anything-but": ["chrome", "search"] }] } }, event({ module: "search" }), false],
    ["unknown matcher never matches", { detail: { module: [{ suffix: "me" }] } }, event({ module: "chrome" }), false],
  ])("matchesPattern - %s", (_name, pattern, envelope, expected) => {
    expect(matchesPattern(pattern, envelope)).toBe(expected);
  });
});
