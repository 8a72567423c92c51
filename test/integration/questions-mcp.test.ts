import { afterAll, beforeAll, expect, test } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import { RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { serveToolgate } from "../support/http-server";
import { postToolCall } from "../support/mcp-post";
import type { ServedToolgate } from "../support/http-server";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
const events = new RecordingPublisher();

beforeAll(async () => {
  toolgate = await testToolgate({ events });
  request = api(toolgate);
  served = await serveToolgate(toolgate);
});

afterAll(() => served?.close());

type Issued = Awaited<ReturnType<typeof createAgent>>;

async function asker() {
  const role = await createRole(request, { name: unique("asker"), toolGroups: ["console"] });
  return createAgent(request, role.id);
}

/** A 2026-07-28 client whose user answers every form with `answer` (it records what it was asked). */
async function userClient(agent: Issued, answer: (asked: ElicitRequest["params"]) => ElicitResult) {
  const asked: Array<ElicitRequest["params"]> = [];
  const client = new Client({ name: "test-user", version: "1.0.0" }, { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params);
    return answer(request.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
  return { client, asked };
}

/** A tools/call of ask_user as a 2026-07-28 client sends it, with the capabilities and round-trip fields given. */
const rawCall = (token: string, args: Record<string, unknown>, capabilities: Record<string, unknown>, retry: Record<string, unknown> = {}) =>
  postToolCall(served.url, token, { name: "ask_user", arguments: args, ...retry }, capabilities) as Promise<any>;

const callsOf = async (agent: Issued) => (await request("GET", `/agents/${agent.agent.id}/calls?tool=ask_user`)).body.calls as Array<Record<string, any>>;

test("ask_user over MCP - a 2026-07-28 client that can elicit asks its own user; the answer is the call's result, recorded, and no operator saw the question", async () => {
  const agent = await asker();
  const { client, asked } = await userClient(agent, () => ({ action: "accept", content: { answer: "staging" } }));
  // A client calls what it was shown: ask_user is listed (a person answers it); console_print is not (the agent's own runtime would run it).
  const listed = (await client.listTools()).tools;
  expect(listed.map((tool) => tool.name)).toEqual(["ask_user"]);
  expect(listed[0]!.inputSchema).toMatchObject({ type: "object", properties: { question: { type: "string" } }, required: ["question"] });
  const result = await client.callTool({ name: "ask_user", arguments: { question: "Deploy where?", options: ["staging", "production"] } });
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: "text", text: '{"action":"accept","answer":"staging"}' }]);
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatchObject({ message: "Deploy where?", requestedSchema: { type: "object", properties: { answer: { type: "string", enum: ["staging", "production"] } }, required: ["answer"] } });

  const [call] = await callsOf(agent);
  expect(call).toMatchObject({ status: "completed", askedOf: "user", answeredBy: "user", result: { content: '{"action":"accept","answer":"staging"}' } });
  expect(events.of("question.asked").map((event) => event.callId)).not.toContain(call!.callId);
  expect((await request("GET", "/calls?status=awaiting_answer")).body.calls.map((queued: { callId: string }) => queued.callId)).not.toContain(call!.callId);
  await client.close();
});

test("ask_user over MCP - several options become a multi-select, an answer the question does not take is asked again, and decline and cancel come back as such", async () => {
  const agent = await asker();
  let round = 0;
  const { client, asked } = await userClient(agent, () => (round++ === 0 ? { action: "accept", content: { answer: ["mars"] } } : { action: "accept", content: { answer: ["eu", "ap"] } }));
  const several = await client.callTool({ name: "ask_user", arguments: { question: "Which regions?", options: ["eu", "us", "ap"], multiple: true } });
  expect(several.content).toEqual([{ type: "text", text: '{"action":"accept","answer":["eu","ap"]}' }]);
  expect(asked).toHaveLength(2);
  expect((asked[0] as { requestedSchema?: unknown }).requestedSchema).toMatchObject({ properties: { answer: { type: "array", items: { type: "string", enum: ["eu", "us", "ap"] } } } });
  await client.close();

  for (const action of ["decline", "cancel"] as const) {
    const { client: refusing } = await userClient(agent, () => ({ action }));
    const answered = await refusing.callTool({ name: "ask_user", arguments: { question: "Share the root password?" } });
    expect(answered.content).toEqual([{ type: "text", text: JSON.stringify({ action }) }]);
    await refusing.close();
  }
  expect((await callsOf(agent)).map((call) => call.status)).toEqual(["completed", "completed", "completed"]);
});

test("ask_user over MCP - a client that cannot elicit leaves the question to an operator; a forged request state is refused", async () => {
  const agent = await asker();
  const client = new Client({ name: "test-plain", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
  const waiting = await client.callTool({ name: "ask_user", arguments: { question: "Anyone there?" } });
  expect(waiting.isError).toBe(true);
  expect(waiting._meta).toMatchObject({ code: "awaiting_answer" });
  const callId = String(waiting._meta!.callId);
  expect((await request("GET", "/calls?status=awaiting_answer")).body.calls.map((queued: { callId: string }) => queued.callId)).toContain(callId);
  expect(events.of("question.asked").map((event) => event.callId)).toContain(callId);
  await client.close();

  // The state toolgate sealed for one agent's question answers nothing for another, and a forged one nothing at all: each is refused (-32602), never a new call.
  const asking = await rawCall(agent.token, { question: "Ship it?" }, { elicitation: { form: {} } });
  expect(asking.result?.resultType, JSON.stringify(asking)).toBe("input_required");
  const state = asking.result.requestState as string;
  const pending = (await callsOf(agent)).find((call) => call.askedOf === "user")!;
  expect(pending.status).toBe("awaiting_answer");
  const stranger = await asker();
  const replayed = await rawCall(stranger.token, { question: "Ship it?" }, {}, { requestState: state, inputResponses: { answer: { action: "accept", content: { answer: "yes" } } } });
  expect((replayed as { error?: { code: number } }).error?.code, JSON.stringify(replayed)).toBe(-32602);
  const forged = await rawCall(agent.token, { question: "Ship it?" }, {}, { requestState: "v1.forged", inputResponses: { answer: { action: "accept", content: { answer: "yes" } } } });
  expect((forged as { error?: { code: number } }).error?.code, JSON.stringify(forged)).toBe(-32602);
  expect((await callsOf(stranger)).filter((call) => call.askedOf === "user")).toEqual([]);
  expect((await request("GET", `/agents/${agent.agent.id}/calls/${pending.callId}`)).body.status).toBe("awaiting_answer");
});

test("ask_user over MCP - a role whose questions go to an operator never asks the agent's user, whatever its client can do", async () => {
  const role = await createRole(request, { name: unique("unattended"), toolGroups: ["console"], questions: "operator" });
  expect(role.questions).toBe("operator");
  const agent = await createAgent(request, role.id);
  const { client, asked } = await userClient(agent, () => ({ action: "accept", content: { answer: "yes" } }));
  const waiting = await client.callTool({ name: "ask_user", arguments: { question: "Proceed?" } });
  expect(waiting._meta).toMatchObject({ code: "awaiting_answer" });
  expect(asked).toEqual([]);
  expect((await request("GET", "/calls?status=awaiting_answer")).body.calls.map((queued: { callId: string }) => queued.callId)).toContain(waiting._meta!.callId);
  await client.close();

  const patched = await request("PATCH", `/roles/${role.id}`, { body: { questions: "user" } });
  expect(patched.body.questions).toBe("user");
  const { client: attended, asked: nowAsked } = await userClient(agent, () => ({ action: "accept", content: { answer: "yes" } }));
  expect((await attended.callTool({ name: "ask_user", arguments: { question: "Proceed?" } })).content).toEqual([{ type: "text", text: '{"action":"accept","answer":"yes"}' }]);
  expect(nowAsked).toHaveLength(1);
  expect((await request("POST", "/roles", { body: { name: unique("bad"), questions: "nobody" } })).status).toBe(400);
  await attended.close();
});
