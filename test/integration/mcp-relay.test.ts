import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, ElicitRequest, ElicitResult, LoggingMessageNotification, Progress } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { RED_PIXEL_PNG, silentWav, startConformanceUpstream } from "../support/conformance-upstream";
import type { ConformanceUpstream, ExtraTool } from "../support/conformance-upstream";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, createAgent, createRole, eventually, putGroup, secondInstance, unique } from "./helpers";

/** A module tool that needs a secret from the user: it sends them to a URL (URL-mode elicitation), never asks for the secret in a form. */
const CONNECT_ACCOUNT: ExtraTool = {
  tool: { name: "connect_account", description: "Connects the user's bank account.", inputSchema: { type: "object", properties: {} } },
  handler: async (_args, ctx) => {
    const params = { mode: "url", message: "Sign in to your bank to connect it.", url: "https://bank.example/connect?session=7", elicitationId: "connect-7" };
    try {
      const answer = (await ctx.mcpReq.send({ method: "elicitation/create", params } as never)) as { action: string };
      return { content: [{ type: "text", text: `connected: ${answer.action}` }] };
    } catch (error) {
      return { content: [{ type: "text", text: `not connected: ${(error as Error).message}` }], isError: true };
    }
  },
};

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let other: ServedToolgate;
let upstream: ConformanceUpstream;
let group: string;
const events = new RecordingPublisher();

beforeAll(async () => {
  toolgate = await testToolgate({ events, mcp: { streams: true } });
  request = api(toolgate);
  [served, other, upstream] = await Promise.all([serveToolgate(toolgate), secondInstance(toolgate).then(serveToolgate), startConformanceUpstream([CONNECT_ACCOUNT])]);
  group = unique("module");
  await putGroup(request, group, { description: "A module that reports progress, logs and asks its user", executor: { type: "mcp", url: upstream.url } });
});

afterAll(async () => {
  await Promise.all([served?.close(), other?.close(), upstream?.close()]);
});

type Capabilities = { elicitation?: { form?: Record<string, never>; url?: Record<string, never> }; sampling?: Record<string, never> };
type Connected = { client: Client; asked: Array<ElicitRequest["params"]>; logs: Array<LoggingMessageNotification["params"]>; repliesElsewhere: () => number };

/**
 * A 2025-era client (the SDK's default) of the agent, whose user answers each form with the next of `answers`. Its
 * replies to toolgate's requests are POSTed to a second toolgate instance, as a load balancer may send them.
 * `sendsSession`: the session id it sends back instead of the one its handshake gave it.
 */
async function connect(token: string, capabilities: Capabilities, answers: ElicitResult[] = [], sendsSession?: string): Promise<Connected> {
  const asked: Connected["asked"] = [];
  const logs: Connected["logs"] = [];
  let elsewhere = 0;
  const client = new Client({ name: "relay-test", version: "1.0.0" }, { capabilities });
  if (capabilities.elicitation)
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return answers.shift() ?? { action: "cancel" };
    });
  client.setNotificationHandler("notifications/message", (notification) => void logs.push(notification.params));
  const routed: typeof fetch = (url, given) => {
    const headers = new Headers(given?.headers);
    if (sendsSession !== undefined && headers.has("mcp-session-id")) headers.set("mcp-session-id", sendsSession);
    const init = { ...given, headers };
    const isReply = typeof init?.body === "string" && "result" in JSON.parse(init.body) && !("method" in JSON.parse(init.body));
    if (!isReply) return fetch(url, init);
    elsewhere++;
    return fetch(`${other.url}/mcp`, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: routed });
  await client.connect(transport);
  return { client, asked, logs, repliesElsewhere: () => elsewhere };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const questionsQueue = async () => (await request("GET", "/calls?status=awaiting_answer")).body.calls as Array<{ callId: string; agentId: string }>;

test("ask_user from a 2025-era client - the question reaches its own user on the call's response; a reply another instance receives is matched to the call, an answer the question does not take is asked again, and no operator sees it", async () => {
  const { agent, token } = await agentWithGroups(request, ["console"]);
  const user = await connect(token, { elicitation: {} }, [
    { action: "accept", content: { answer: "tomorrow" } },
    { action: "accept", content: { answer: "staging" } },
  ]);

  const result = (await user.client.callTool({ name: "ask_user", arguments: { question: "Deploy where?", options: ["staging", "production"] } })) as CallToolResult;

  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toContain("staging");
  expect(user.asked).toHaveLength(2);
  expect(user.asked[0]).toMatchObject({ message: "Deploy where?", requestedSchema: { properties: { answer: { enum: ["staging", "production"] } } } });
  expect(user.repliesElsewhere()).toBe(2);
  const callId = (result._meta as { callId: string }).callId;
  const record = (await request("GET", `/agents/${agent.id}/calls/${callId}`)).body;
  expect(record).toMatchObject({ status: "completed", answeredBy: "user" });
  expect((await questionsQueue()).filter((queued) => queued.agentId === agent.id)).toEqual([]);
  expect(events.of("question.asked").filter((asked) => asked.agentId === agent.id)).toEqual([]);

  const decliner = await connect(token, { elicitation: {} }, [{ action: "decline" }]);
  const answer = (await decliner.client.callTool({ name: "ask_user", arguments: { question: "Go on?" } })) as CallToolResult;
  expect(textOf(answer)).toContain("decline");
});

test("an MCP module's progress, log messages and question reach the agent's 2025-era client during the call, and its image and audio come back whole", async () => {
  const { token } = await agentWithGroups(request, [group]);
  const user = await connect(token, { elicitation: {} }, [{ action: "accept", content: { username: "ada", email: "ada@example.com" } }]);

  const progress: Progress[] = [];
  const counted = await user.client.callTool({ name: "test_tool_with_progress", arguments: {} }, { onprogress: (update) => void progress.push(update) });
  expect(textOf(counted)).toContain("Reported progress");
  expect(progress.map((update) => update.progress)).toEqual([0, 50, 100]);

  await user.client.setLoggingLevel("warning");
  await user.client.callTool({ name: "test_tool_with_logging", arguments: {} });
  expect(user.logs).toEqual([]);
  await user.client.setLoggingLevel("info");
  await user.client.callTool({ name: "test_tool_with_logging", arguments: {} });
  expect(user.logs.map((log) => log.data)).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"]);

  const elicited = await user.client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  expect(user.asked).toEqual([expect.objectContaining({ message: "Who are you?" })]);
  const [, action, content] = textOf(elicited).match(/^User response: action=(\w+), content=(.*)$/)!;
  expect({ action, content: JSON.parse(content!) }).toEqual({ action: "accept", content: { username: "ada", email: "ada@example.com" } });

  const image = (await user.client.callTool({ name: "test_image_content", arguments: {} })) as CallToolResult;
  const audio = (await user.client.callTool({ name: "test_audio_content", arguments: {} })) as CallToolResult;
  expect(image.content).toEqual([{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }]);
  expect(audio.content).toEqual([{ type: "audio", data: silentWav(), mimeType: "audio/wav" }]);
});

test("a module's question for a secret (URL mode) goes only to the agent's own client: one that takes URLs is asked; one that cannot gets the module a refusal, and nothing reaches the operators' queue", async () => {
  const { token } = await agentWithGroups(request, [group]);

  const browser = await connect(token, { elicitation: { form: {}, url: {} } }, [{ action: "accept" }]);
  const connected = await browser.client.callTool({ name: "connect_account", arguments: {} });
  expect(textOf(connected)).toBe("connected: accept");
  expect(browser.asked).toEqual([expect.objectContaining({ mode: "url", url: "https://bank.example/connect?session=7" })]);

  const formsOnly = await connect(token, { elicitation: { form: {} } });
  const refused = (await formsOnly.client.callTool({ name: "connect_account", arguments: {} })) as CallToolResult;
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain("cannot put this question to anyone");
  expect(formsOnly.asked).toEqual([]);

  const unattended = await agentWithGroups(request, [group]);
  const overRest = await request("POST", `/agents/${unattended.agent.id}/calls`, { token: unattended.token, body: { tool: "connect_account", arguments: {} } });
  expect(overRest.body.result.content).toContain("cannot put this question to anyone");
  expect((await questionsQueue()).filter((queued) => queued.agentId === unattended.agent.id)).toEqual([]);
});

test("an agent's 2025-era clients are told apart by the session id each handshake gives: each is asked only what it declared and logs at its own level, whichever connected last; another agent's session id declares nothing", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const browser = await connect(token, { elicitation: { form: {}, url: {} } }, [{ action: "accept" }]);
  const plain = await connect(token, {});
  const sessions = [browser, plain].map(({ client }) => (client.transport as StreamableHTTPClientTransport).sessionId);
  expect(sessions).toEqual([expect.stringMatching(/^[\x21-\x7e]+$/), expect.stringMatching(/^[\x21-\x7e]+$/)]);
  expect(sessions[0]).not.toBe(sessions[1]);

  expect(textOf(await browser.client.callTool({ name: "connect_account", arguments: {} }))).toBe("connected: accept");
  expect(textOf(await plain.client.callTool({ name: "connect_account", arguments: {} }))).toContain("cannot put this question to anyone");
  expect(browser.asked).toHaveLength(1);

  await browser.client.setLoggingLevel("warning");
  await browser.client.callTool({ name: "test_tool_with_logging", arguments: {} });
  await plain.client.callTool({ name: "test_tool_with_logging", arguments: {} });
  expect(browser.logs).toEqual([]);
  expect(plain.logs).toHaveLength(3);

  const other = await agentWithGroups(request, [group]);
  const borrowing = await connect(other.token, {}, [], sessions[0]);
  expect(textOf(await borrowing.client.callTool({ name: "connect_account", arguments: {} }))).toContain("cannot put this question to anyone");
  const madeUp = await connect(token, {}, [], "not-a-session");
  expect(textOf(await madeUp.client.callTool({ name: "connect_account", arguments: {} }))).toContain("cannot put this question to anyone");
  expect((await questionsQueue()).filter((queued) => [agent.id, other.agent.id].includes(queued.agentId))).toEqual([]);
});

test("sampling - a module's sampling request reaches a 2025-era client that declares sampling; one that does not gets the module a clear refusal", async () => {
  const { token } = await agentWithGroups(request, [group]);
  const sampler = await connect(token, { sampling: {} });
  sampler.client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model" }));
  expect(textOf(await sampler.client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } }))).toBe("LLM response: Paris");

  const plain = await connect(token, {});
  const refused = (await plain.client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } })) as CallToolResult;
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain("toolgate cannot relay this sampling request");
});

type Queued = { callId: string; agentId: string; tool: string; askedFor?: string; arguments: { question: string; form?: Record<string, unknown> } };

/** The question a module's call put in the operators' queue, once it is there. */
const queuedFor = (agentId: string) =>
  eventually(
    async () => ((await questionsQueue()) as Queued[]).find((queued) => queued.agentId === agentId),
    (queued) => queued !== undefined,
  ) as Promise<Queued>;

test("a module's question an agent's client cannot take goes to the operators' queue, announced with its form; an answer that does not fill the form is refused, and the answer reaches the module", async () => {
  const { agent, token } = await agentWithGroups(request, [group]);
  const call = request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "test_elicitation", arguments: { message: "Who should own the release?" } } });

  const queued = await queuedFor(agent.id);
  expect(queued).toMatchObject({ tool: "ask_user", arguments: { question: "Who should own the release?", form: { properties: { username: {}, email: {} } } } });
  expect(events.of("question.asked").find((asked) => asked.callId === queued.callId)).toMatchObject({ askedFor: queued.askedFor, form: { type: "object" } });

  const wrong = await request("POST", `/calls/${queued.callId}/answer`, { body: { answer: "ada" } });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error).toBe("invalid_answer");
  const incomplete = await request("POST", `/calls/${queued.callId}/answer`, { body: { content: { username: "ada" } } });
  expect(incomplete.status).toBe(400);
  expect(incomplete.body.message).toContain("email");
  const answered = await request("POST", `/calls/${queued.callId}/answer`, { body: { content: { username: "ada", email: "ada@example.com" } } });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);

  const ran = await call;
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body.callId).toBe(queued.askedFor);
  expect(JSON.parse(ran.body.result.content.replace(/^User response: action=accept, content=/, ""))).toEqual({ username: "ada", email: "ada@example.com" });
});

test("a role whose questions go to the operators puts a module's questions to them, not to its agents' users; a question whose call ends first is withdrawn", async () => {
  const role = await createRole(request, { name: unique("unattended"), toolGroups: [group], questions: "operator" });
  const { agent, token } = await createAgent(request, role.id);
  const user = await connect(token, { elicitation: {} }, [{ action: "accept", content: { username: "not-asked", email: "no@example.com" } }]);
  const call = user.client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
  const queued = await queuedFor(agent.id);
  await request("POST", `/calls/${queued.callId}/answer`, { body: { action: "decline" } });
  expect(textOf(await call)).toBe("User response: action=decline, content={}");
  expect(user.asked).toEqual([]);

  const hurried = unique("hurried");
  await putGroup(request, hurried, { description: "The same module, with little time for a person", executor: { type: "mcp", url: upstream.url, toolPrefix: "quick", timeoutMs: 5_000 } });
  const rushed = await agentWithGroups(request, [hurried]);
  const timedOut = request("POST", `/agents/${rushed.agent.id}/calls`, { token: rushed.token, body: { tool: "quick_test_elicitation", arguments: { message: "Quick?" } } });
  await queuedFor(rushed.agent.id);
  expect((await timedOut).body.error).toBe("tool_timeout");
  const questions = async () => (await request("GET", `/agents/${rushed.agent.id}/calls?tool=ask_user`)).body.calls as Array<Record<string, unknown>>;
  const [withdrawn] = await eventually(questions, (asked) => asked.length === 1 && asked[0]!.status !== "awaiting_answer");
  expect(withdrawn).toMatchObject({ status: "cancelled", error: { code: "question_withdrawn" } });
  expect((await questionsQueue()).filter((queued) => queued.agentId === rushed.agent.id)).toEqual([]);
});
