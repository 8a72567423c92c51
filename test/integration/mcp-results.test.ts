import { randomBytes } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startUpstreamMcp } from "../support/upstream-mcp";
import type { UpstreamMcp } from "../support/upstream-mcp";
import { agentWithGroups, putGroup, storedText, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let upstream: UpstreamMcp;
let caller: Awaited<ReturnType<typeof agentWithGroups>>;
let group: string;

const IMAGE = randomBytes(12_000).toString("base64");
const AUDIO = randomBytes(9_000).toString("base64");
const BLOB = randomBytes(6_000).toString("base64");

/** An answer with every kind of content block, structuredContent, _meta and annotations. */
const EVERY_KIND: CallToolResult = {
  content: [
    { type: "text", text: "The chart and the recording:", annotations: { audience: ["user"], priority: 0.8 } },
    { type: "image", data: IMAGE, mimeType: "image/png", _meta: { "example.com/alt": "sales by month" } },
    { type: "audio", data: AUDIO, mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///reports/q3.pdf", name: "q3.pdf", title: "Q3 report", mimeType: "application/pdf", size: 48_213 },
    { type: "resource", resource: { uri: "test://notes/1", mimeType: "text/markdown", text: "# Notes" } },
    { type: "resource", resource: { uri: "test://archive.zip", mimeType: "application/zip", blob: BLOB } },
  ],
  structuredContent: { months: 12, total: 1_234.5 },
  _meta: { "example.com/trace": "trace-7", cached: false },
};

const FAILED: CallToolResult = {
  content: [{ type: "text", text: "The chart could not be drawn." }, { type: "image", data: IMAGE, mimeType: "image/png" }],
  structuredContent: { reason: "no data" },
  isError: true,
  _meta: { "example.com/trace": "trace-8" },
};

/** A tool whose schemas are JSON Schema 2020-12, as MCP servers declare theirs. */
const ADDRESS_INPUT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  required: ["name"],
  additionalProperties: false,
};
const ADDRESS_OUTPUT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { saved: { type: "boolean" } }, required: ["saved"] };

const TOOLS: Tool[] = [
  { name: "sales_report", description: "The sales report.", inputSchema: { type: "object", properties: { failing: { type: "boolean" }, caller: { type: "string" } } } },
  { name: "save_address", description: "Saves an address.", inputSchema: ADDRESS_INPUT as Tool["inputSchema"], outputSchema: ADDRESS_OUTPUT as Tool["outputSchema"] },
];

const SAVED: CallToolResult = { content: [{ type: "text", text: '{"saved":true}' }], structuredContent: { saved: true } };

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  upstream = await startUpstreamMcp({ tools: TOOLS, answer: (call) => (call.name === "save_address" ? SAVED : call.arguments.failing ? FAILED : EVERY_KIND) });
  group = unique("reports");
  await putGroup(request, group, { description: "Reports.", executor: { type: "mcp", url: upstream.url } });
  caller = await agentWithGroups(request, [group]);
});

afterAll(async () => {
  await served?.close();
  await upstream?.close();
});

const transportOptions = () => ({ requestInit: { headers: { authorization: `Bearer ${caller.token}` } } });
const endpoint = () => new URL(`${served.url}/mcp`);

/** The answer as the agent's client received it (each with arguments of its own, so no call repeats another), from a 2026-07-28 client, a 2025 client and the v1 SDK's client. */
async function callThroughEveryClient(args: Record<string, unknown>): Promise<Record<string, CallToolResult>> {
  const modern = new Client({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const legacy = new Client({ name: "legacy", version: "1.0.0" });
  const v1 = new V1Client({ name: "v1", version: "1.0.0" });
  try {
    await modern.connect(new StreamableHTTPClientTransport(endpoint(), transportOptions()));
    await legacy.connect(new StreamableHTTPClientTransport(endpoint(), transportOptions()));
    await v1.connect(new V1Transport(endpoint(), transportOptions()));
    const call = (caller: string) => ({ name: "sales_report", arguments: { ...args, caller } });
    return {
      modern: (await modern.callTool(call("modern"))) as CallToolResult,
      legacy: (await legacy.callTool(call("legacy"))) as CallToolResult,
      v1: (await v1.callTool(call("v1"))) as CallToolResult,
    };
  } finally {
    await Promise.all([modern.close(), legacy.close(), v1.close()]);
  }
}

/** The answer without what toolgate adds to its _meta: the callId, and on 2026-07-28 the protocol's own serverInfo. */
const withoutToolgatesMeta = ({ _meta, ...rest }: CallToolResult) => {
  const { callId: _callId, "io.modelcontextprotocol/serverInfo": _serverInfo, ...meta } = _meta ?? {};
  return { ...rest, ...(Object.keys(meta).length ? { _meta: meta } : {}) };
};

test("through /mcp - an MCP module's answer reaches every client whole: each kind of block, structuredContent and _meta, toolgate's callId added", async () => {
  const received = await callThroughEveryClient({});
  for (const [client, result] of Object.entries(received)) {
    expect(withoutToolgatesMeta(result), client).toEqual(EVERY_KIND);
    expect(result._meta?.callId, client).toMatch(/^call_/);
    const record = await request("GET", `/agents/${caller.agent.id}/calls/${result._meta!.callId}`, { token: caller.token });
    expect(record.body, client).toMatchObject({ status: "completed", group });
  }
});

test("through /mcp - an upstream isError answer arrives as it came, its blocks and structuredContent included, and the call is recorded as an error", async () => {
  const received = await callThroughEveryClient({ failing: true });
  for (const [client, result] of Object.entries(received)) {
    expect(withoutToolgatesMeta(result), client).toEqual(FAILED);
    const record = await request("GET", `/agents/${caller.agent.id}/calls/${result._meta!.callId}`, { token: caller.token });
    expect(record.body, client).toMatchObject({ status: "error", result: { type: "error", content: `The chart could not be drawn.\n[image image/png]` } });
  }
});

test("POST /agents/:id/calls - answers the text as before and the MCP server's whole answer as result.mcpResult", async () => {
  const done = await request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: "sales_report", arguments: { caller: "rest" } } });
  expect(done.status, JSON.stringify(done.body).slice(0, 500)).toBe(200);
  expect(done.body).toEqual({ callId: expect.stringMatching(/^call_/), status: "completed", result: { content: '{"months":12,"total":1234.5}', type: "json", mcpResult: EVERY_KIND } });
});

test("call records - keep a bounded summary of an MCP answer's blocks and never its image, audio or blob data", async () => {
  const done = await request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: "sales_report", arguments: { caller: "record" } } });
  const record = await request("GET", `/agents/${caller.agent.id}/calls/${done.body.callId}`, { token: caller.token });
  expect(record.body.result).toEqual({
    content: '{"months":12,"total":1234.5}',
    type: "json",
    mcp: {
      blocks: [
        { type: "text", bytes: 28 },
        { type: "image", mimeType: "image/png", bytes: 12_000 },
        { type: "audio", mimeType: "audio/wav", bytes: 9_000 },
        { type: "resource_link", mimeType: "application/pdf", uri: "file:///reports/q3.pdf", bytes: 48_213 },
        { type: "resource", mimeType: "text/markdown", uri: "test://notes/1", bytes: 7 },
        { type: "resource", mimeType: "application/zip", uri: "test://archive.zip", bytes: 6_000 },
      ],
      structuredContent: true,
    },
  });
  const stored = await storedText(toolgate);
  for (const data of [IMAGE, AUDIO, BLOB]) expect(stored).not.toContain(data.slice(0, 64));
});

test("tools/list - lists an MCP module's input and output schemas whole, $schema included, and arguments are still checked against them", async () => {
  const client = new Client({ name: "legacy", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint(), transportOptions()));
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "save_address")!;
    expect(listed.inputSchema).toEqual(ADDRESS_INPUT);
    expect(listed.outputSchema).toEqual(ADDRESS_OUTPUT);
    const saved = await client.callTool({ name: "save_address", arguments: { name: "Ada", address: { city: "London" } } });
    expect(saved).toMatchObject({ structuredContent: { saved: true } });
    const refused = await client.callTool({ name: "save_address", arguments: { name: "Ada", phone: "123" } });
    expect(refused).toMatchObject({ isError: true, _meta: { code: "invalid_arguments" } });
    expect(upstream.calls.filter((call) => call.name === "save_address")).toHaveLength(1);
  } finally {
    await client.close();
  }
  const rest = await request("GET", `/agents/${caller.agent.id}/tools?format=mcp`, { token: caller.token });
  expect(rest.body.tools.find((tool: Tool) => tool.name === "save_address")).toMatchObject({ inputSchema: ADDRESS_INPUT, outputSchema: ADDRESS_OUTPUT });
  const openai = await request("GET", `/agents/${caller.agent.id}/tools?format=openai`, { token: caller.token });
  expect(openai.body.tools.find((tool: { function: { name: string } }) => tool.function.name === "save_address")).toEqual({
    type: "function",
    function: { name: "save_address", description: "Saves an address.", parameters: ADDRESS_INPUT },
  });
});
