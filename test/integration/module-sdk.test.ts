import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
import type { Module } from "@toolgate/module";
import type { Toolgate } from "@toolgate/core/toolgate";
import { serveFetch, serveToolgate } from "../support/http-server";
import type { Served, ServedToolgate } from "../support/http-server";
import { ADMIN_TOKEN, api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, unique } from "./helpers";

let toolgate: Toolgate;
let served: ServedToolgate;
let request: Api;
let module: Module;
let moduleUrl: string;
let moduleServer: Served;
let mcpServer: Served;
let mcpUrl: string;
const groupId = unique("words");
/** The texts wordCount ran on, in order: how many times the tool really ran. */
const counted: string[] = [];
/** Every request the module's two endpoints received, as it arrived. */
const received: Request[] = [];

const wordCount = defineTool({
  name: `${groupId}_count`,
  description: "Counts the words of a text.",
  parameters: z.object({ text: z.string().describe("The text to count") }),
  execute: ({ text }) => (counted.push(text), { words: text.split(/\s+/).filter(Boolean).length }),
});
const whoAmI = defineTool({
  name: `${groupId}_who`,
  description: "Says who calls.",
  parameters: z.object({}),
  execute: (_input, ctx) => `${ctx.agent.id} of ${ctx.agent.department ?? "no department"} in ${ctx.callId}`,
});

beforeAll(async () => {
  toolgate = await testToolgate();
  served = await serveToolgate(toolgate);
  request = api(toolgate);
  moduleServer = await serveFetch((incoming) => (received.push(incoming.clone()), module.fetch(incoming)));
  moduleUrl = `${moduleServer.url}/call`;
  module = defineModule({ id: groupId, description: "Tools about words.", tools: [wordCount, whoAmI], toolgate: { url: served.url }, url: moduleUrl });
  const endpoint = module.mcp({ signedCallsOnly: true });
  mcpServer = await serveFetch((incoming) => (received.push(incoming.clone()), endpoint.fetch(incoming)));
  mcpUrl = `${mcpServer.url}/mcp`;
});

afterAll(async () => {
  await mcpServer.close();
  await moduleServer.close();
  await served.close();
});

test("a module written with the SDK is registered from its definitions, called by an agent over REST and /mcp, and refuses a call around toolgate", async () => {
  await module.announce({ adminToken: ADMIN_TOKEN });
  const registered = await request("GET", `/groups/${groupId}`);
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  expect(registered.body.executor).toMatchObject({ type: "http", url: moduleUrl });
  expect(registered.body.tools[0].function.parameters).toMatchObject({ type: "object", properties: { text: { type: "string", description: "The text to count" } }, required: ["text"] });

  const role = await createRole(request, { name: unique("role"), toolGroups: [groupId] });
  const { agent, token } = await createAgent(request, role.id, { department: "research" });
  const counted = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: wordCount.name, arguments: { text: "one two three" } } });
  expect(counted.status, JSON.stringify(counted.body)).toBe(200);
  expect(counted.body.result).toMatchObject({ type: "json", content: '{"words":3}' });

  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const who: any = await client.callTool({ name: whoAmI.name, arguments: {} });
    expect(who.isError).toBeFalsy();
    expect(who.content[0].text).toBe(`${agent.id} of research in ${who._meta.callId}`);
  } finally {
    await client.close();
  }

  const around = await fetch(moduleUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ callId: "call_forged", tool: wordCount.name, arguments: { text: "x" }, agentId: agent.id, roleId: role.id }),
  });
  expect(around.status).toBe(401);
  expect(await around.json()).toMatchObject({ error: "unauthenticated" });

  await module.withdraw({ adminToken: ADMIN_TOKEN });
  expect((await request("GET", `/groups/${groupId}`)).status).toBe(404);
  await module.withdraw({ adminToken: ADMIN_TOKEN });
  await expect(module.announce({ adminToken: "not-the-admin-token" })).rejects.toThrow(/HTTP 401/);
});

test("the same module served over MCP (mcp()) registers with an mcp executor and runs only the calls toolgate signed, as the calling agent", async () => {
  const mcpGroup = `${groupId}_mcp`;
  const registered = await request("PUT", `/groups/${mcpGroup}`, { body: { description: "Tools about words, over MCP.", executor: { type: "mcp", url: mcpUrl, toolPrefix: "mcp" } } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  expect(registered.body.tools.map((tool: any) => tool.function.name)).toEqual([`mcp_${wordCount.name}`, `mcp_${whoAmI.name}`]);

  const role = await createRole(request, { name: unique("role"), toolGroups: [mcpGroup] });
  const { agent, token } = await createAgent(request, role.id, { department: "research" });
  const who = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: `mcp_${whoAmI.name}`, arguments: {} } });
  expect(who.status, JSON.stringify(who.body)).toBe(200);
  expect(who.body.result.content).toBe(`${agent.id} of research in ${who.body.callId}`);

  const client = new Client({ name: "around-toolgate", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([wordCount.name, whoAmI.name]);
    await expect(client.callTool({ name: wordCount.name, arguments: { text: "x" } })).rejects.toThrow(/no toolgate-call token/);
  } finally {
    await client.close();
  }
});

/** A request sent again exactly as it arrived: its method, URL, headers (the call token among them) and body. */
const resent = async (request: Request) => fetch(request.url, { method: request.method, headers: request.headers, body: await request.clone().text() });

const runsOf = (text: string) => counted.filter((ran) => ran === text).length;

test("the exact request toolgate sent an SDK module, sent again, is refused as a used token and runs nothing, over HTTP and over MCP; a fresh call runs", async () => {
  await module.announce({ adminToken: ADMIN_TOKEN });
  const mcpGroup = `${groupId}_once`;
  const registered = await request("PUT", `/groups/${mcpGroup}`, { body: { description: "Words over MCP.", executor: { type: "mcp", url: mcpUrl, toolPrefix: "once" } } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const role = await createRole(request, { name: unique("role"), toolGroups: [groupId, mcpGroup] });
  const { agent, token } = await createAgent(request, role.id);
  const call = (tool: string, text: string) => request("POST", `/agents/${agent.id}/calls`, { token, body: { tool, arguments: { text } } });

  for (const [tool, text, url] of [[wordCount.name, "sent once over http", moduleUrl], [`once_${wordCount.name}`, "sent once over mcp", mcpUrl]] as const) {
    const since = received.length;
    expect((await call(tool, text)).status).toBe(200);
    expect(runsOf(text)).toBe(1);
    const sent = received.slice(since).filter((incoming) => incoming.url === url);
    const tokens = sent.map((incoming) => incoming.headers.get("toolgate-call"));
    expect(new Set(tokens).size, "each request toolgate sent carried a token of its own").toBe(sent.length);
    const bodies = await Promise.all(sent.map((incoming) => incoming.clone().text()));
    const toolCall = sent[bodies.findIndex((body) => body.includes(text))]!;
    for (let replay = 0; replay < 3; replay++) {
      const refused = await resent(toolCall);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "unauthenticated", message: expect.stringContaining("token was already used") });
    }
    expect(runsOf(text), "the tool did not run again").toBe(1);
    expect((await call(tool, text)).status).toBe(200);
    expect(runsOf(text), "a fresh call runs").toBe(2);
  }
  const calls = await request("GET", `/agents/${agent.id}/calls`, { token });
  expect(calls.body.calls.filter((recorded: { status: string }) => recorded.status === "completed")).toHaveLength(4);
  await module.withdraw({ adminToken: ADMIN_TOKEN });
});
