import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { agentWithGroups, putGroup, unique } from "./helpers";

// @modelcontextprotocol/server-everything (the reference server: resources, templates, prompts, completions) over Streamable HTTP.
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let everything: ChildProcess;
let url: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  const port = await freePort();
  everything = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((ready, fail) => {
    everything.stderr!.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && ready());
    everything.once("exit", (code) => fail(new Error(`server-everything exited with ${code}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
  toolgate = await testToolgate();
  request = api(toolgate);
  served = await serveToolgate(toolgate);
});

afterAll(async () => {
  everything?.kill();
  await served?.close();
});

test("server-everything - its resources, templates and prompts are imported, listed over /mcp, read, got and completed through toolgate", async () => {
  const id = unique("everything");
  const group = await putGroup(request, id, { description: "The MCP reference server.", executor: { type: "mcp", url, toolPrefix: "ev" } });
  expect(group.offers.resources.length).toBeGreaterThan(0);
  expect(group.offers.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
  expect(group.offers.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(expect.arrayContaining(["ev_simple-prompt", "ev_completable-prompt"]));

  const { agent, token } = await agentWithGroups(request, [id]);
  const client = new Client({ name: "everything-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const listed = await client.listResources();
    const first = group.offers.resources[0];
    expect(listed.resources.map((resource) => resource.uri)).toContain(`toolgate://${id}/${first.uri}`);
    const read = await client.readResource({ uri: `toolgate://${id}/${first.uri}` });
    expect(read.contents[0]!.uri).toBe(first.uri);
    const templated = await client.readResource({ uri: `toolgate://${id}/demo://resource/dynamic/text/7` });
    expect(templated.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/7", text: expect.stringContaining("Resource 7") });

    const prompt = await client.getPrompt({ name: "ev_simple-prompt" });
    expect(prompt.messages.length).toBeGreaterThan(0);
    const completion = await client.complete({ ref: { type: "ref/prompt", name: "ev_completable-prompt" }, argument: { name: "department", value: "S" } });
    expect(completion.completion.values).toEqual(["Sales", "Support"]);
  } finally {
    await client.close();
  }
  const history = await request("GET", `/agents/${agent.id}/calls`, { token });
  expect(history.body.calls.map((call: { kind: string; tool: string; status: string }) => [call.kind, call.tool, call.status])).toEqual([
    ["prompt", "ev_simple-prompt", "completed"],
    ["resource", "resources/read", "completed"],
    ["resource", "resources/read", "completed"],
  ]);
});
