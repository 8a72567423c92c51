import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { Client, SERVER_INFO_META_KEY, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, ElicitRequest, LoggingMessageNotification, Progress } from "@modelcontextprotocol/client";
import { createMcpHandler, inputRequired, inputResponse, Server } from "@modelcontextprotocol/server";
import type { Tool } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { RED_PIXEL_PNG, silentWav } from "../support/conformance-upstream";
import { serveToolgate } from "../support/http-server";
import { postToolCall } from "../support/mcp-post";
import type { ServedToolgate } from "../support/http-server";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, eventually, putGroup, unique } from "./helpers";

const CONTACT_FORM = { type: "object" as const, properties: { username: { type: "string" as const } }, required: ["username"] };
const NO_ARGUMENTS = { type: "object" as const, properties: {} };
const TOOLS: Tool[] = [
  { name: "count", description: "Reports its progress.", inputSchema: NO_ARGUMENTS },
  { name: "chatty", description: "Logs while it runs.", inputSchema: NO_ARGUMENTS },
  { name: "whoami", description: "Asks the user who they are.", inputSchema: NO_ARGUMENTS },
  { name: "slow_whoami", description: "Asks the user who they are, then takes its time.", inputSchema: NO_ARGUMENTS },
  { name: "pondering_whoami", description: "Takes its time, then asks the user who they are.", inputSchema: NO_ARGUMENTS },
  { name: "media", description: "Answers with an image and a recording.", inputSchema: NO_ARGUMENTS },
];

/** What slow_whoami waits for once it has its answer: the test lets it finish. */
let held: Promise<void> = Promise.resolve();
/** How long pondering_whoami runs before it asks. */
const PONDER_MS = 200;

/** A module on MCP 2026-07-28 (stateless, one handler per request): its question is an input_required answer, asked again with the reply. */
function modernModule(): Server {
  const server = new Server({ name: "modern-module", version: "2.0.0" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
    switch (request.params.name) {
      case "count": {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await sleep(30);
          if (progressToken !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
        }
        return text("counted");
      }
      case "chatty":
        await ctx.mcpReq.log("info", "started");
        await sleep(30);
        await ctx.mcpReq.log("warning", "halfway");
        return text("talked");
      case "whoami":
      case "slow_whoami":
      case "pondering_whoami": {
        const reply = inputResponse(ctx.mcpReq.inputResponses, "who");
        if (reply.kind !== "elicit") {
          if (request.params.name === "pondering_whoami") await sleep(PONDER_MS);
          return inputRequired({ inputRequests: { who: inputRequired.elicit({ message: "Who are you?", requestedSchema: CONTACT_FORM }) } });
        }
        if (request.params.name === "slow_whoami") await held;
        return text(`${reply.action}: ${JSON.stringify(reply.content ?? {})}`);
      }
      default:
        return {
          content: [
            { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
            { type: "audio", data: silentWav(), mimeType: "audio/wav" },
          ],
          _meta: { "example.com/trace": "t-1" },
        };
    }
  });
  return server;
}

let request: Api;
let served: ServedToolgate;
let group: string;
const rpcMethods: string[] = [];
/** The module's tools/call requests that came with answers (a paused call going on). */
const answered: Array<Record<string, unknown>> = [];
let closeModule: () => Promise<void>;

beforeAll(async () => {
  const toolgate = await testToolgate({ mcp: { streams: true } });
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  const handler = createMcpHandler(() => modernModule());
  const module = serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (incoming: Request) => {
      const body = incoming.method === "POST" ? await incoming.clone().json() : undefined;
      if (typeof body?.method === "string") rpcMethods.push(body.method);
      if (body?.method === "tools/call" && body.params?.inputResponses) answered.push(body.params.inputResponses);
      return handler.fetch(incoming);
    },
  });
  await new Promise<void>((ready) => (module.listening ? ready() : module.once("listening", () => ready())));
  closeModule = () => new Promise<void>((done) => module.close(() => done()));
  group = unique("modern");
  await putGroup(request, group, {
    description: "A module on MCP 2026-07-28",
    executor: { type: "mcp", url: `http://127.0.0.1:${(module.address() as AddressInfo).port}/mcp` },
  });
});

afterAll(async () => {
  await Promise.all([served?.close(), closeModule?.()]);
});

/** A 2025-era client (the SDK's default) of the agent that declares elicitation; its user answers `username`. */
async function connect(token: string, username: string) {
  const asked: Array<ElicitRequest["params"]> = [];
  const logs: Array<LoggingMessageNotification["params"]> = [];
  const client = new Client({ name: "modern-module-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler("elicitation/create", async (elicit) => {
    asked.push(elicit.params);
    return { action: "accept", content: { username } };
  });
  client.setNotificationHandler("notifications/message", (notification) => void logs.push(notification.params));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, asked, logs };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

test("an MCP module on 2026-07-28 - toolgate connects with server/discover; its progress, logs and question reach the agent's client during the call, and its answer comes back whole, named as toolgate's", async () => {
  const { token } = await agentWithGroups(request, [group]);
  const user = await connect(token, "ada");

  const progress: Progress[] = [];
  expect(textOf(await user.client.callTool({ name: "count", arguments: {} }, { onprogress: (update) => void progress.push(update) }))).toBe("counted");
  expect(progress.map((update) => update.progress)).toEqual([0, 50, 100]);
  expect(rpcMethods).toContain("server/discover");
  expect(rpcMethods).not.toContain("initialize");

  await user.client.setLoggingLevel("warning");
  expect(textOf(await user.client.callTool({ name: "chatty", arguments: {} }))).toBe("talked");
  expect(user.logs.map((log) => log.data)).toEqual(["halfway"]);

  expect(textOf(await user.client.callTool({ name: "whoami", arguments: {} }))).toBe('accept: {"username":"ada"}');
  expect(user.asked).toEqual([expect.objectContaining({ message: "Who are you?" })]);

  const media = (await user.client.callTool({ name: "media", arguments: {} })) as CallToolResult;
  expect(media.content).toEqual([
    { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
    { type: "audio", data: silentWav(), mimeType: "audio/wav" },
  ]);
  expect(media._meta).toMatchObject({ "example.com/trace": "t-1", callId: expect.stringMatching(/^call_/) });
  expect(media._meta?.[SERVER_INFO_META_KEY]).toBeUndefined();
});

test("an MCP module on 2026-07-28 - its question during a REST agent's call waits for an operator, whose answer reaches the module", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const call = request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "whoami", arguments: {} } });
  const queued = await eventually(
    async () => ((await request("GET", "/calls?status=awaiting_answer")).body.calls as Array<{ callId: string; agentId: string; arguments: { question: string } }>).find((asked) => asked.agentId === agent.id),
    (asked) => asked !== undefined,
  );
  expect(queued!.arguments.question).toBe("Who are you?");
  const answered = await request("POST", `/calls/${queued!.callId}/answer`, { body: { content: { username: "grace" } } });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  const ran = await call;
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body.result.content).toBe('accept: {"username":"grace"}');
  expect(ran.body.result.mcpResult._meta?.[SERVER_INFO_META_KEY]).toBeUndefined();
});

/** A 2026-07-28 client (the SDK's, negotiating) of the agent; it declares forms and its user answers `username`. */
async function connectModern(token: string, username: string) {
  const asked: Array<ElicitRequest["params"]> = [];
  const client = new Client({ name: "modern-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
  client.setRequestHandler("elicitation/create", async (elicit) => {
    asked.push(elicit.params);
    return { action: "accept", content: { username } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, asked };
}

/** One tools/call as a 2026-07-28 client that takes forms posts it. */
const postCall = (token: string, id: number, params: Record<string, unknown> & { name: string }) => postToolCall(served.url, token, params, { elicitation: { form: {} } }, id);

test("an MCP module on 2026-07-28 - its question goes to a 2026-07-28 agent client that takes forms: the call pauses, goes on with the user's answer, and is recorded once", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const user = await connectModern(token, "lin");
  const before = answered.length;

  const result = (await user.client.callTool({ name: "whoami", arguments: {} })) as CallToolResult;

  expect(textOf(result)).toBe('accept: {"username":"lin"}');
  expect(user.asked).toEqual([expect.objectContaining({ message: "Who are you?" })]);
  expect(answered.slice(before)).toEqual([{ who: { action: "accept", content: { username: "lin" } } }]);
  const callId = (result._meta as { callId: string }).callId;
  const calls = (await request("GET", `/agents/${agent.id}/calls?tool=whoami`)).body.calls as Array<{ callId: string; status: string; inputRound?: number }>;
  expect(calls).toEqual([expect.objectContaining({ callId, status: "completed", inputRound: 1 })]);
  expect(((await request("GET", "/calls?status=awaiting_answer")).body.calls as Array<{ agentId: string }>).filter((asked) => asked.agentId === agent.id)).toEqual([]);
});

test("an MCP module on 2026-07-28 - a paused call goes on once: the same answers sent again while it runs, or after, do not run the tool again; other arguments are refused", async () => {
  const { token } = await agentWithGroups(request, [group]);
  const paused = (await postCall(token, 1, { name: "slow_whoami", arguments: {} })).result;
  expect(paused).toMatchObject({ resultType: "input_required", inputRequests: { who: { method: "elicitation/create" } } });
  const goOn = { name: "slow_whoami", arguments: {}, inputResponses: { who: { action: "accept", content: { username: "kim" } } }, requestState: paused.requestState };
  const before = answered.length;

  let release = () => {};
  held = new Promise((done) => (release = done));
  const first = postCall(token, 2, goOn);
  await eventually(async () => answered.length, (count) => count > before);
  const again = (await postCall(token, 3, goOn)).result;
  release();
  expect(again).toMatchObject({ isError: true, _meta: { code: "call_already_answered" } });
  expect((await first).result).toMatchObject({ content: [{ type: "text", text: 'accept: {"username":"kim"}' }] });
  const after = (await postCall(token, 4, goOn)).result;
  expect(after).toMatchObject({ content: [{ type: "text", text: 'accept: {"username":"kim"}' }] });
  expect(answered.length - before).toBe(1);

  const tampered = (await postCall(token, 5, { ...goOn, arguments: { extra: true } })).result;
  expect(tampered).toMatchObject({ isError: true, _meta: { code: "not_the_paused_call" } });
});

test("an MCP module on 2026-07-28 - answers that come after the call's timeout do not take it on: the call has timed out", async () => {
  const hurried = unique("hurried");
  const { executor } = (await request("GET", `/groups/${group}`)).body as { executor: { url: string } };
  await putGroup(request, hurried, { description: "The same module, with a short timeout", executor: { type: "mcp", url: executor.url, toolPrefix: "quick", timeoutMs: 1_000 } });
  const { token } = await agentWithGroups(request, [hurried]);
  const paused = (await postCall(token, 1, { name: "quick_whoami", arguments: {} })).result;
  expect(paused).toMatchObject({ resultType: "input_required" });
  const before = answered.length;
  await sleep(1_100);

  const late = (await postCall(token, 2, { name: "quick_whoami", arguments: {}, inputResponses: { who: { action: "accept", content: { username: "late" } } }, requestState: paused.requestState })).result;

  expect(late).toMatchObject({ isError: true, _meta: { code: "tool_timeout" } });
  expect(answered.length).toBe(before);
});

type CallRecord = { status: string; startedAt: string; finishedAt: string; durationMs: number; error?: { code: string } };

test("an MCP module on 2026-07-28 - a paused call's duration is the time its tool ran, over both rounds, not the time its user took to answer", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const paused = (await postCall(token, 1, { name: "pondering_whoami", arguments: {} })).result;
  expect(paused).toMatchObject({ resultType: "input_required" });
  const thinkingMs = 400;
  await sleep(thinkingMs);

  const done = (await postCall(token, 2, { name: "pondering_whoami", arguments: {}, inputResponses: { who: { action: "accept", content: { username: "ada" } } }, requestState: paused.requestState })).result;

  expect(done).toMatchObject({ content: [{ type: "text", text: 'accept: {"username":"ada"}' }] });
  const record = (await request("GET", `/agents/${agent.id}/calls/${(done._meta as { callId: string }).callId}`)).body as CallRecord;
  expect(record.status).toBe("completed");
  expect(record.durationMs).toBeGreaterThanOrEqual(PONDER_MS);
  expect(record.durationMs).toBeLessThanOrEqual(Date.parse(record.finishedAt) - Date.parse(record.startedAt) - thinkingMs);
});

test("an MCP module on 2026-07-28 - a paused call refused on going on (its tool disabled meanwhile) is recorded with the time its tool ran before the pause", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const paused = (await postCall(token, 1, { name: "pondering_whoami", arguments: {} })).result;
  expect(paused).toMatchObject({ resultType: "input_required" });
  expect((await request("POST", "/tools/pondering_whoami/disable")).status).toBe(200);
  try {
    const refused = (await postCall(token, 2, { name: "pondering_whoami", arguments: {}, inputResponses: { who: { action: "accept", content: { username: "ada" } } }, requestState: paused.requestState })).result;

    expect(refused).toMatchObject({ isError: true, _meta: { code: "tool_disabled" } });
    const calls = (await request("GET", `/agents/${agent.id}/calls?tool=pondering_whoami`)).body.calls as CallRecord[];
    expect(calls).toEqual([expect.objectContaining({ status: "refused", error: expect.objectContaining({ code: "tool_disabled" }) })]);
    expect(calls[0]!.durationMs).toBeGreaterThanOrEqual(PONDER_MS);
  } finally {
    expect((await request("POST", "/tools/pondering_whoami/enable")).status).toBe(200);
  }
});
