import { afterAll, beforeAll, expect, test } from "vitest";
import fc from "fast-check";
import * as z from "zod";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { defineModule, defineTool } from "@toolgate/module";
import type { Module } from "@toolgate/module";
import type { Toolgate } from "@toolgate/core/toolgate";
import { isSecretKey } from "../../packages/core/src/call/redact";
import { canonicalJson } from "../../packages/core/src/tool/canonical";
import { ADMIN_TOKEN, api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { serveFetch, serveToolgate } from "../support/http-server";
import type { Served } from "../support/http-server";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: Served;
let executor: Executor;
let moduleServer: Served;
let module: Module;
let agent: Awaited<ReturnType<typeof agentWithGroups>>;

const groups = { http: unique("sizes"), runtime: unique("runtime"), module: unique("ledger") };
const names = { integer: unique("resize"), open: unique("echo"), runtime: unique("measure"), charge: `${groups.module}_charge` };

const charge = defineTool({
  name: names.charge,
  description: "Charges an amount.",
  parameters: z.object({ amount: z.number() }),
  execute: ({ amount }) => ({ charged: amount }),
});

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([
    testToolgate(),
    startExecutor(({ body }) => ({ body: { content: JSON.stringify(body?.arguments), type: "json", metadata: body?.arguments } })),
  ]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  moduleServer = await serveFetch((incoming) => module.fetch(incoming));
  module = defineModule({ id: groups.module, description: "Charges.", tools: [charge], toolgate: { url: served.url }, url: `${moduleServer.url}/call` });
  await module.announce({ adminToken: ADMIN_TOKEN });
  const sized = { type: "object", properties: { bytes: { type: "integer", maximum: 1e308 } }, required: ["bytes"] };
  const open = { ...tool(names.open, "Echoes any arguments.", { type: "object", additionalProperties: true }), "x-toolgate": { repeatLimit: 0 } };
  await putGroup(request, groups.http, { description: "Sizes.", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(names.integer, "Resize.", sized), open] });
  await putGroup(request, groups.runtime, { description: "Run by the agent.", executor: { type: "client" }, tools: [tool(names.runtime, "Measure.")] });
  agent = await agentWithGroups(request, ["command", "console", groups.http, groups.runtime, groups.module]);
});

afterAll(async () => {
  await moduleServer?.close();
  await served?.close();
  await executor?.close();
});

const call = (name: string, args: Record<string, unknown>) => request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name, arguments: args } });
const reportResult = (callId: string, result: Record<string, unknown>) => request("POST", `/agents/${agent.agent.id}/calls/${callId}/result`, { token: agent.token, body: result });

async function recorded(callId: string) {
  const response = await request("GET", `/agents/${agent.agent.id}/calls/${callId}`, { token: agent.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function mcpClient() {
  const client = new Client({ name: "json-values", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
  return client;
}

const sameJson = (actual: unknown, expected: unknown) => expect(canonicalJson(actual)).toBe(canonicalJson(expected));

test("big numbers - a refused call's arguments beyond DynamoDB's numbers are recorded with its refusal (run_command, ask_user), over REST", async () => {
  for (const [name, args] of [
    ["run_command", { command: "ls", timeoutMs: 1e308 }],
    ["ask_user", { question: "Go?", extra: 1e300 }],
  ] as const) {
    const response = await call(name, args);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body).toMatchObject({ error: "invalid_arguments", toolName: name, recoverable: true });
    const record = await recorded(response.body.callId);
    expect(record).toMatchObject({ tool: name, status: "refused", error: { code: "invalid_arguments" } });
    sameJson(record.arguments, args);
  }
});

test("big numbers - a tool's schema with 1e308 in it is registered and read back as written", async () => {
  const group = await request("GET", `/groups/${groups.http}`);
  expect(group.status, JSON.stringify(group.body)).toBe(200);
  expect(group.body.tools[0].function.parameters.properties.bytes).toEqual({ type: "integer", maximum: 1e308 });
});

test("big numbers - 1e300 to a module's number and 2^60 to an integer (valid) run and are recorded exactly, over REST", async () => {
  const charged = await call(names.charge, { amount: 1e300 });
  expect(charged.status, JSON.stringify(charged.body)).toBe(200);
  expect(charged.body.result).toMatchObject({ type: "json", content: '{"charged":1e+300}' });
  expect(await recorded(charged.body.callId)).toMatchObject({ status: "completed", arguments: { amount: 1e300 } });

  const resized = await call(names.integer, { bytes: 2 ** 60 });
  expect(resized.status, JSON.stringify(resized.body)).toBe(200);
  expect(executor.requestsFor(names.integer).at(-1)?.body.arguments).toEqual({ bytes: 2 ** 60 });
  const record = await recorded(resized.body.callId);
  expect(record).toMatchObject({ status: "completed", arguments: { bytes: 2 ** 60 }, result: { metadata: { bytes: 2 ** 60 } } });
});

test("big numbers - a client's result with metadata beyond DynamoDB's numbers completes the call and is recorded, over REST", async () => {
  const started = await call(names.runtime, {});
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const reported = await reportResult(started.body.callId, { content: "measured", metadata: { n: 1e308, tiny: 5e-324, exact: 2 ** 60 } });
  expect(reported.status, JSON.stringify(reported.body)).toBe(200);
  const record = await recorded(started.body.callId);
  expect(record).toMatchObject({ status: "completed", result: { content: "measured", metadata: { n: 1e308, tiny: 5e-324, exact: 2 ** 60 } } });
});

test("big numbers - the same calls over /mcp: refusals are isError results, the rest run, and every one is recorded (no -32603)", async () => {
  const client = await mcpClient();
  try {
    for (const [name, args] of [
      ["run_command", { command: "ls", timeoutMs: 1e308 }],
      ["ask_user", { question: "Go?", extra: 1e300 }],
    ] as const) {
      const refused: any = await client.callTool({ name, arguments: args });
      expect(refused).toMatchObject({ isError: true, _meta: { code: "invalid_arguments" } });
      const record = await recorded(refused._meta.callId);
      expect(record).toMatchObject({ tool: name, status: "refused" });
      sameJson(record.arguments, args);
    }

    const charged: any = await client.callTool({ name: names.charge, arguments: { amount: 1e300 } });
    expect(charged.isError ?? false).toBe(false);
    expect(charged.structuredContent).toEqual({ charged: 1e300 });
    expect(await recorded(charged._meta.callId)).toMatchObject({ status: "completed", arguments: { amount: 1e300 } });

    const resized: any = await client.callTool({ name: names.integer, arguments: { bytes: 2 ** 60 } });
    expect(resized.isError ?? false).toBe(false);
    expect(await recorded(resized._meta.callId)).toMatchObject({ status: "completed", arguments: { bytes: 2 ** 60 }, result: { metadata: { bytes: 2 ** 60 } } });

    const runtime: any = await client.callTool({ name: names.runtime, arguments: {} });
    expect(runtime).toMatchObject({ isError: true, _meta: { code: "client_executed" } });
    expect((await reportResult(runtime._meta.callId, { content: "measured", metadata: { n: 1e308 } })).status).toBe(200);
    expect(await recorded(runtime._meta.callId)).toMatchObject({ status: "completed", result: { metadata: { n: 1e308 } } });
  } finally {
    await client.close();
  }
});

/**
 * Redaction changes what looks secret, and a record keeps 16 KiB of a result (its content escaped once more), by
 * design: such keys and values, and arguments that large, are left out of the property.
 */
const notSecretLooking = (value: unknown): boolean => {
  if (typeof value === "string") return !isSecretKey(value);
  if (value === null || typeof value !== "object") return true;
  return Object.entries(value).every(([key, inner]) => (Array.isArray(value) || !isSecretKey(key)) && notSecretLooking(inner));
};

const callArguments = fc
  .dictionary(fc.string({ unit: "grapheme" }), fc.jsonValue({ maxDepth: 4, stringUnit: "grapheme" }), { maxKeys: 6 })
  .filter((args) => notSecretLooking(args) && Buffer.byteLength(JSON.stringify(args)) < 4_000);

test("any JSON arguments - a call's arguments, and a tool's metadata holding them, are recorded and given back exactly (property, over REST)", async () => {
  await fc.assert(
    fc.asyncProperty(callArguments, async (args) => {
      const response = await call(names.open, args);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      sameJson(executor.requestsFor(names.open).at(-1)?.body.arguments, args);
      const record = await recorded(response.body.callId);
      expect(record.status).toBe("completed");
      sameJson(record.arguments, args);
      sameJson(record.result.metadata, args);
    }),
    { numRuns: 60 },
  );
}, 120_000);

test("any JSON arguments - an empty key, which no DynamoDB map holds, is an argument like any other, recorded as given", async () => {
  const args = { "": { "": { n: 1e300 } }, list: [{ "": -0 }] };
  const response = await call(names.open, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  sameJson(executor.requestsFor(names.open).at(-1)?.body.arguments, args);
  const record = await recorded(response.body.callId);
  sameJson(record.arguments, args);
  sameJson(record.result.metadata, args);
});

