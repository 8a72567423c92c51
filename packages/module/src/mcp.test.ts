import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createLocalJWKSet } from "jose";
import { afterAll, expect, test } from "vitest";
import * as z from "zod";
import { CallSigner } from "@toolgate/core/executor";
import { ANONYMOUS_AGENT, defineModule, defineTool } from "./index.js";
import type { McpEndpoint } from "./index.js";

const URL_OF_MODULE = "http://notes.example.com/mcp";
const signer = new CallSigner("module-mcp-signing-key-0123456789-0123456789");
const ran: Array<{ title: string; agent: string; callId: string }> = [];

const readNote = defineTool({
  name: "read_note",
  description: "Reads a note by its title.",
  parameters: z.object({ title: z.string().min(1).describe("The note's title") }),
  policy: { dangerous: true },
  execute: ({ title }, ctx) => {
    ran.push({ title, agent: ctx.agent.id, callId: ctx.callId });
    return `${title} for ${ctx.agent.id}`;
  },
});
const countNotes = defineTool({ name: "count_notes", description: "Counts the notes.", parameters: z.object({}), execute: () => ({ notes: 3 }) });
const failing = defineTool({ name: "failing", description: "Fails.", parameters: z.object({}), execute: () => { throw new Error("the disk is full"); } });

const notes = defineModule({ id: "notes", description: "Notes.", tools: [readNote, countNotes, failing], toolgate: { keys: createLocalJWKSet(signer.jwks()) }, url: URL_OF_MODULE });
const endpoints: McpEndpoint[] = [];
afterAll(() => Promise.all(endpoints.map((endpoint) => endpoint.close())));

/** An MCP client of the official SDK talking to the endpoint in process; `sign` adds toolgate's token to each tools/call. */
async function connect(endpoint: McpEndpoint, sign?: (name: string, args: Record<string, unknown>) => Promise<string>) {
  endpoints.push(endpoint);
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = request.method === "POST" ? await request.clone().json() : undefined;
    if (sign && body?.method === "tools/call") request.headers.set("toolgate-call", await sign(body.params.name, body.params.arguments));
    return endpoint.fetch(request);
  };
  const client = new Client({ name: "notes-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_OF_MODULE), { fetch }));
  return client;
}

test("mcp() serves the module's tools to any MCP client: their schemas, text and JSON answers, errors as isError", async () => {
  const client = await connect(notes.mcp());
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "notes", version: notes.definitions().version });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["read_note", "count_notes", "failing"]);
    expect(tools[0]).toMatchObject({
      description: "Reads a note by its title.",
      inputSchema: { type: "object", properties: { title: { type: "string", minLength: 1, description: "The note's title" } }, required: ["title"] },
      annotations: { destructiveHint: true },
    });

    const read: any = await client.callTool({ name: "read_note", arguments: { title: "groceries" } });
    expect(read).toMatchObject({ content: [{ type: "text", text: `groceries for ${ANONYMOUS_AGENT.id}` }] });
    expect(read.isError).toBeFalsy();
    expect(await client.callTool({ name: "count_notes", arguments: {} })).toMatchObject({ content: [{ type: "text", text: '{"notes":3}' }], structuredContent: { notes: 3 } });
    expect(await client.callTool({ name: "failing", arguments: {} })).toMatchObject({ content: [{ type: "text", text: "the disk is full" }], isError: true });
    const invalid: any = await client.callTool({ name: "read_note", arguments: { title: "" } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0].text).toMatch(/^The arguments for read_note are not valid \(title: /);
  } finally {
    await client.close();
  }
});

test("mcp({ signedCallsOnly }) runs a tools/call only with toolgate's token for that tool and those arguments, as the agent it names", async () => {
  const sign = (args?: Record<string, unknown>) => async (name: string, sent: Record<string, unknown>) =>
    signer.sign({ callId: "call_mcp_1", tool: name, arguments: args ?? sent, agentId: "agt_mcp", roleId: "rol_1", audience: URL_OF_MODULE, timeoutMs: 5_000 });
  const signed = await connect(notes.mcp({ signedCallsOnly: true }), sign());
  try {
    expect((await signed.listTools()).tools).toHaveLength(3);
    expect(await signed.callTool({ name: "read_note", arguments: { title: "signed" } })).toMatchObject({ content: [{ type: "text", text: "signed for agt_mcp" }] });
    expect(ran.at(-1)).toEqual({ title: "signed", agent: "agt_mcp", callId: "call_mcp_1" });
  } finally {
    await signed.close();
  }

  const before = ran.length;
  const unsigned = await connect(notes.mcp({ signedCallsOnly: true }));
  const replayed = await connect(notes.mcp({ signedCallsOnly: true }), sign({ title: "something else" }));
  try {
    await expect(unsigned.callTool({ name: "read_note", arguments: { title: "around toolgate" } })).rejects.toThrow(/401|no toolgate-call token/);
    await expect(replayed.callTool({ name: "read_note", arguments: { title: "other arguments" } })).rejects.toThrow(/401|signed for another call/);
    expect(ran.length).toBe(before);
  } finally {
    await unsigned.close();
    await replayed.close();
  }
});

test("mcp({ signedCallsOnly }) takes a token once: the exact tools/call request sent again is 401 saying it was already used, and the tool does not run again", async () => {
  const sent: Request[] = [];
  const endpoint = notes.mcp({ signedCallsOnly: true });
  const recording: McpEndpoint = {
    fetch: async (request) => {
      sent.push(request.clone());
      return endpoint.fetch(request);
    },
    close: () => endpoint.close(),
  };
  const client = await connect(recording, (name, args) =>
    signer.sign({ callId: "call_mcp_once", tool: name, arguments: args, agentId: "agt_mcp", roleId: "rol_1", audience: URL_OF_MODULE, timeoutMs: 5_000 }),
  );
  const runs = () => ran.filter((run) => run.title === "once over MCP").length;
  try {
    expect(await client.callTool({ name: "read_note", arguments: { title: "once over MCP" } })).toMatchObject({ content: [{ type: "text", text: "once over MCP for agt_mcp" }] });
    expect(runs()).toBe(1);
    const toolsCall = sent.find((request) => request.headers.has("toolgate-call"))!;
    for (let replay = 0; replay < 3; replay++) {
      const answer = await endpoint.fetch(toolsCall.clone());
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual({ error: "unauthenticated", message: expect.stringContaining("token was already used") });
    }
    expect(runs()).toBe(1);
    await client.callTool({ name: "read_note", arguments: { title: "once over MCP" } });
    expect(runs()).toBe(2);
  } finally {
    await client.close();
  }
});
