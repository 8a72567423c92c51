// A module written with the SDK, deployed as a deploy step would: announced on `npm start`'s bus, called by an agent
// over REST and /mcp, redeployed unchanged (nothing moves) and changed (its tools move), and withdrawn.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
import type { ModuleTool } from "@toolgate/module";
import { serveFetch } from "../support/http-server";
import type { Served } from "../support/http-server";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

let dataDir: string;
let stack: LocalProcess;
let moduleServer: Served;
let serving: (request: Request) => Promise<Response>;

const letterCount = defineTool({
  name: "letter_count",
  description: "Counts the letters of a text.",
  parameters: z.object({ text: z.string().describe("The text") }),
  execute: ({ text }) => ({ letters: [...text].filter((c) => /\p{L}/u.test(c)).length }),
});
const shout = defineTool({ name: "shout", description: "Shouts a text.", parameters: z.object({ text: z.string() }), execute: ({ text }, ctx) => `${text.toUpperCase()}! (${ctx.agent.id})` });
const whisper = defineTool({ name: "whisper", description: "Whispers a text.", parameters: z.object({ text: z.string() }), execute: ({ text }) => text.toLowerCase() });

const http = (method: string, path: string, body?: unknown, token = stack.adminToken) => stack.request(method, path, token, body);

/** The module as one deployment of it: the same id and URL, these tools. */
const deployment = (tools: ModuleTool[]) => {
  const module = defineModule({ id: "letters", description: "Tools about letters.", tools, toolgate: { url: stack.url }, url: `${moduleServer.url}/call` });
  serving = module.fetch;
  return module;
};
const bus = () => ({ endpoint: `${stack.url}/eventbridge`, region: "us-east-1", credentials: { ...stack.awsCredentials } });

/** Waits until toolgate has applied the module's event of that version. */
async function applied(version: number) {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((done) => setTimeout(done, 50))) {
    const state = await http("GET", "/modules/letters");
    if (state.status === 200 && state.body.version === version) return state.body;
  }
  throw new Error(`toolgate did not apply version ${version} of the module: ${JSON.stringify((await http("GET", "/modules/letters")).body)}`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "toolgate-module-sdk-"));
  stack = await startLocalProcess(dataDir);
  moduleServer = await serveFetch((request) => serving(request));
}, 90_000);

afterAll(async () => {
  await moduleServer?.close();
  await stack?.stop("SIGTERM");
  await rm(dataDir, { recursive: true, force: true });
});

test("an SDK module announced on the bus is called over REST and /mcp; redeploying the same code changes nothing, changed code moves its tools", async () => {
  const first = deployment([letterCount, shout]);
  expect(await applied((await first.announce({ bus: bus(), version: 1 }), 1))).toMatchObject({ status: "loaded", groupId: "letters" });
  const registered = await http("GET", "/groups/letters");
  expect(registered.body).toMatchObject({ source: "module", module: "letters", executor: { type: "http", url: `${moduleServer.url}/call` } });
  expect(registered.body.tools.map((tool: any) => tool.function.name)).toEqual(["letter_count", "shout"]);

  const role = await http("POST", "/roles", { name: "letters-writer", rolePrompt: "Work with letters.", toolGroups: ["letters"] });
  const { agent, token } = (await http("POST", "/agents", { roleId: role.body.id, name: "letters-1" })).body;
  const counted = await http("POST", `/agents/${agent.id}/calls`, { tool: "letter_count", arguments: { text: "to be, or not" } }, token);
  expect(counted.body).toMatchObject({ status: "completed", result: { type: "json", content: '{"letters":9}' } });
  const client = new Client({ name: "letters-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    expect(await client.callTool({ name: "shout", arguments: { text: "hello" } })).toMatchObject({ content: [{ type: "text", text: `HELLO! (${agent.id})` }] });
  } finally {
    await client.close();
  }
  const direct = await fetch(`${moduleServer.url}/call`, { method: "POST", body: JSON.stringify({ callId: "call_x", tool: "shout", arguments: { text: "x" }, agentId: agent.id }) });
  expect(direct.status).toBe(401);

  const same = deployment([letterCount, shout]);
  expect(same.definitions().version).toBe(first.definitions().version);
  await applied((await same.announce({ bus: bus(), version: 2 }), 2));
  expect((await http("GET", "/groups/letters")).body.updatedAt).toBe(registered.body.updatedAt);

  const changed = deployment([letterCount, whisper]);
  expect(changed.definitions().version).not.toBe(first.definitions().version);
  await applied((await changed.announce({ bus: bus(), version: 3 }), 3));
  const moved = await http("GET", "/groups/letters");
  expect(moved.body.tools.map((tool: any) => tool.function.name)).toEqual(["letter_count", "whisper"]);
  expect(moved.body.updatedAt > registered.body.updatedAt).toBe(true);
  expect((await http("POST", `/agents/${agent.id}/calls`, { tool: "whisper", arguments: { text: "QUIET" } }, token)).body.result).toMatchObject({ content: "quiet" });
  expect((await http("POST", `/agents/${agent.id}/calls`, { tool: "shout", arguments: { text: "gone" } }, token)).status).toBe(404);

  await first.announce({ bus: bus(), version: 2 });
  await changed.withdraw({ bus: bus(), version: 4 });
  expect(await applied(4)).toMatchObject({ status: "unloaded" });
  expect((await http("GET", "/groups/letters")).status).toBe(404);
}, 60_000);
