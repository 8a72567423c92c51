import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, ElicitRequest, ElicitResult, LoggingMessageNotification, Progress } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { closeMcpConnections } from "../../packages/core/src/executor/mcp";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { postToolCall } from "../support/mcp-post";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startUpstreamMcp } from "../support/upstream-mcp";
import type { UpstreamMcp } from "../support/upstream-mcp";
import { startServerEverything, startV1Upstream } from "../support/upstream-mcp-v1";
import type { V1Revision, V1Upstream } from "../support/upstream-mcp-v1";
import { agentWithGroups, eventually, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let everything: { url: string; close(): Promise<void> };
let v1: V1Upstream;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  toolgate = await testToolgate({ mcp: { streams: true } });
  request = api(toolgate);
  [served, everything, v1] = await Promise.all([serveToolgate(toolgate), startServerEverything(), startV1Upstream()]);
});

afterAll(async () => {
  await Promise.all([served?.close(), everything?.close(), v1?.close(), ...closing.map((close) => close())]);
});

/** A group (its tools imported from the server, under a prefix of its own) and an agent whose role holds only it; `named`: a tool's name there. */
async function moduleAgent(url: string, executor: Record<string, unknown> = {}) {
  const group = unique("era");
  const toolPrefix = group.replace(/^era_/, "m");
  const registered = (await putGroup(request, group, { description: "An upstream MCP server", executor: { type: "mcp", url, toolPrefix, ...executor } })) as { tools: Array<{ function: { name: string } }> };
  const named = (tool: string) => `${toolPrefix}_${tool}`;
  return { group, named, tools: registered.tools.map((tool) => tool.function.name.slice(toolPrefix.length + 1)), ...(await agentWithGroups(request, [group])) };
}

const restCall = (agent: { id: string }, token: string, tool: string, args: Record<string, unknown> = {}) =>
  request("POST", `/agents/${agent.id}/calls`, { token, body: { tool, arguments: args } });

type Capabilities = { elicitation?: { form?: Record<string, never>; url?: Record<string, never> }; sampling?: Record<string, never> };

/** A 2025-era client (the SDK's default) of the agent, whose user accepts every question (`name: "ada"`) and whose model answers "Paris". */
async function connect(token: string, capabilities: Capabilities) {
  const asked: Array<ElicitRequest["params"]> = [];
  const sampled: unknown[] = [];
  const logs: Array<LoggingMessageNotification["params"]> = [];
  const client = new Client({ name: "eras-test", version: "1.0.0" }, { capabilities });
  if (capabilities.elicitation)
    client.setRequestHandler("elicitation/create", async (elicit) => {
      asked.push(elicit.params);
      return elicit.params.mode === "url" ? { action: "accept" } : { action: "accept", content: { name: "ada" } };
    });
  if (capabilities.sampling)
    client.setRequestHandler("sampling/createMessage", async (sample) => {
      sampled.push(sample.params);
      return { role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model" };
    });
  client.setNotificationHandler("notifications/message", (notification) => void logs.push(notification.params));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  closing.push(() => client.close());
  return { client, asked, sampled, logs };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as Array<{ type: string; text?: string; uri?: string }>).map((block) => block.text ?? block.uri ?? `[${block.type}]`).join("\n");

/** Every tool server-everything lists to a client that declares elicitation and sampling (as toolgate's does), its arguments, and what its answer says. */
const EVERY_TOOL: Record<string, { arguments: Record<string, unknown>; says: RegExp }> = {
  echo: { arguments: { message: "hello" }, says: /^Echo: hello$/ },
  "get-annotated-message": { arguments: { messageType: "success", includeImage: true }, says: /Operation completed successfully/ },
  "get-env": { arguments: {}, says: /"PORT"/ },
  "get-resource-links": { arguments: { count: 2 }, says: /Here are 2 resource links/ },
  "get-resource-reference": { arguments: { resourceType: "Text", resourceId: 1 }, says: /Resource 1/ },
  "get-structured-content": { arguments: { location: "Chicago" }, says: /temperature/ },
  "get-sum": { arguments: { a: 2, b: 3 }, says: /The sum of 2 and 3 is 5/ },
  "get-tiny-image": { arguments: {}, says: /Here's the image you requested/ },
  "gzip-file-as-resource": { arguments: { name: "hello.txt.gz", data: "data:text/plain;base64,aGVsbG8=" }, says: /hello\.txt\.gz/ },
  "toggle-simulated-logging": { arguments: {}, says: /simulated, random-leveled logging/ },
  "toggle-subscriber-updates": { arguments: {}, says: /simulated resource updated notifications/ },
  "trigger-long-running-operation": { arguments: { duration: 0.4, steps: 4 }, says: /Long running operation completed/ },
  "trigger-elicitation-request": { arguments: {}, says: /User provided the requested information[\s\S]*Name: ada/ },
  "trigger-url-elicitation": { arguments: { url: "https://example.com/connect" }, says: /User completed the URL elicitation flow/ },
  "trigger-sampling-request": { arguments: { prompt: "Capital of France?" }, says: /LLM sampling result[\s\S]*Paris/ },
  "simulate-research-query": { arguments: { topic: "MCP" }, says: /requires task augmentation/ },
};

test("server-everything (v1 SDK, stateful) - toolgate imports every tool it lists, and every one runs through /mcp for a 2025-era client that declares elicitation and sampling, progress arriving during the long call", async () => {
  const { tools, token, named } = await moduleAgent(everything.url);
  expect(tools.sort()).toEqual(Object.keys(EVERY_TOOL).sort());
  const user = await connect(token, { elicitation: { form: {}, url: {} }, sampling: {} });

  for (const [name, { arguments: args, says }] of Object.entries(EVERY_TOOL)) {
    const progress: Array<Progress & { at: number }> = [];
    const result = (await user.client.callTool({ name: named(name), arguments: args }, { onprogress: (update) => void progress.push({ ...update, at: Date.now() }) })) as CallToolResult;
    const endedAt = Date.now();
    expect(textOf(result), name).toMatch(says);
    expect(result._meta?.callId, name).toMatch(/^call_/);
    if (name === "trigger-long-running-operation") {
      expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4]);
      expect(endedAt - progress[0]!.at).toBeGreaterThanOrEqual(200);
    }
  }
  expect(user.asked.map((asked) => asked.mode ?? "form")).toEqual(["form", "url"]);
  expect(user.sampled).toHaveLength(1);
});

test("server-everything (v1 SDK, stateful) - every tool runs over REST: what needs a person or a model is refused to the server with a reason, or waits for an operator, and nothing is a 500", async () => {
  const { agent, token, named } = await moduleAgent(everything.url);
  for (const [name, { arguments: args, says }] of Object.entries(EVERY_TOOL)) {
    if (name === "trigger-elicitation-request") continue;
    const ran = await restCall(agent, token, named(name), args);
    expect(ran.status, `${name}: ${JSON.stringify(ran.body)}`).toBe(200);
    if (name === "trigger-url-elicitation" || name === "trigger-sampling-request") expect(ran.body.result.content, name).toContain("toolgate cannot");
    else expect(ran.body.result.content, name).toMatch(says);
  }
  const asking = restCall(agent, token, named("trigger-elicitation-request"));
  const queued = await waitForQuestion(agent.id);
  expect((await request("POST", `/calls/${queued}/answer`, { body: { action: "decline" } })).status).toBe(200);
  const declined = await asking;
  expect(declined.status).toBe(200);
  expect(declined.body.result.content).toContain("User declined");
});

async function waitForQuestion(agentId: string): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const calls = (await request("GET", "/calls?status=awaiting_answer")).body.calls as Array<{ callId: string; agentId: string }>;
    const asked = calls.find((call) => call.agentId === agentId);
    if (asked) return asked.callId;
    await new Promise((wait) => setTimeout(wait, 25));
  }
  throw new Error(`no question of ${agentId} reached the operators`);
}

test("a v1 server (stateful) - what it sends on the session's own stream during a call reaches that call's client: a log message, a question and a sampling request", async () => {
  const { token, named } = await moduleAgent(v1.url);
  const user = await connect(token, { elicitation: { form: {} }, sampling: {} });

  expect(textOf(await user.client.callTool({ name: named("chatty"), arguments: {} }))).toBe("talked");
  expect(user.logs.map((log) => log.data).sort()).toEqual(["on the call", "on the session"]);
  expect(textOf(await user.client.callTool({ name: named("ask_aside"), arguments: {} }))).toBe('{"action":"accept","content":{"name":"ada"}}');
  expect(user.asked).toEqual([expect.objectContaining({ message: "Who are you, aside?" })]);
  expect(textOf(await user.client.callTool({ name: named("sample_aside"), arguments: { prompt: "Capital of France?" } }))).toContain("Paris");
  expect(textOf(await user.client.callTool({ name: named("ask"), arguments: {} }))).toBe('{"action":"accept","content":{"name":"ada"}}');
  expect(textOf(await user.client.callTool({ name: named("sample"), arguments: { prompt: "Capital of Italy?" } }))).toContain("Paris");
  expect(user.sampled).toHaveLength(2);
});

test("a v1 server (stateful) - what it asks on the session's own stream between calls is refused, and reaches no later call", async () => {
  const upstream = await startV1Upstream();
  closing.push(() => upstream.close());
  const { token, named } = await moduleAgent(upstream.url);
  const user = await connect(token, { elicitation: { form: {} } });

  expect(textOf(await user.client.callTool({ name: named("ask_later"), arguments: {} }))).toBe("asked later");
  await expect.poll(() => upstream.outcomes).toEqual([expect.stringContaining("refused: MCP error -32600: toolgate cannot put this question to anyone")]);
  expect(textOf(await user.client.callTool({ name: named("echo"), arguments: { text: "still here" } }))).toBe("still here");
  expect(user.asked).toEqual([]);
});

const REVISIONS: V1Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

test("a server that speaks one revision - 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 (v1 SDK, stateful and stateless) and 2026-07-28 (v2 SDK): toolgate negotiates it, imports and calls", async () => {
  for (const revision of REVISIONS)
    for (const stateless of [false, true]) {
      const upstream = await startV1Upstream({ revision, stateless });
      closing.push(() => upstream.close());
      const { agent, token, named } = await moduleAgent(upstream.url);
      const ran = await restCall(agent, token, named("echo"), { text: revision });
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
      expect(ran.body.result.content).toBe(revision);
      const called = upstream.requests.find((sent) => sent.rpc.includes("tools/call"));
      expect(called?.headers["mcp-protocol-version"], `${revision}${stateless ? " stateless" : ""}`).toBe(revision);
    }

  const modern: UpstreamMcp = await startUpstreamMcp({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }], answer: (call) => ({ content: [{ type: "text", text: String(call.arguments.text) }] }) });
  closing.push(() => modern.close());
  const { agent, token, named } = await moduleAgent(modern.url);
  const ran = await restCall(agent, token, named("echo"), { text: "2026-07-28" });
  expect(ran.body.result?.content, JSON.stringify(ran.body)).toBe("2026-07-28");
  expect(modern.requests.find((sent) => sent.rpc.includes("tools/call"))?.headers["mcp-protocol-version"]).toBe("2026-07-28");
});

test("a server that negotiates 2026-07-28 yet answers without resultType (as the v1 SDK does) - its answers are read as complete, on a stream whose progress still arrives during the call, and the tool runs once", async () => {
  const upstream = await startV1Upstream({ claims2026: true });
  closing.push(() => upstream.close());
  const { agent, token, named } = await moduleAgent(upstream.url);
  const ran = await restCall(agent, token, named("echo"), { text: "complete" });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body.result.content).toBe("complete");
  expect(upstream.requests.filter((sent) => sent.rpc.includes("tools/call"))).toHaveLength(1);
  expect(upstream.requests.some((sent) => sent.rpc.includes("initialize"))).toBe(false);

  const user = await connect(token, {});
  const progress: Array<{ at: number }> = [];
  const counted = await user.client.callTool({ name: named("count"), arguments: { steps: 5 } }, { onprogress: () => void progress.push({ at: Date.now() }) });
  const endedAt = Date.now();
  expect(textOf(counted)).toBe("counted to 5");
  expect(progress).toHaveLength(5);
  expect(endedAt - progress[0]!.at).toBeGreaterThanOrEqual(60);
});

/** A 2026-07-28 client of the agent (the v2 SDK's, negotiating), which answers input_required itself: its user gives `answers` in turn, its model says "Paris". */
async function connectModern(token: string, answers: ElicitResult[], capabilities: Capabilities = { elicitation: { form: {} } }) {
  const asked: Array<ElicitRequest["params"]> = [];
  const sampled: unknown[] = [];
  const client = new Client({ name: "eras-modern", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: "auto" } });
  if (capabilities.elicitation)
    client.setRequestHandler("elicitation/create", async (elicit) => {
      asked.push(elicit.params);
      return answers[asked.length - 1] ?? { action: "cancel" };
    });
  if (capabilities.sampling)
    client.setRequestHandler("sampling/createMessage", async (sample) => {
      sampled.push(sample.params);
      return { role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model" };
    });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  closing.push(() => client.close());
  return { client, asked, sampled };
}

type Recorded = { callId: string; status: string; inputRound?: number; error?: { code: string; message: string } };
const callsOf = async (agent: { id: string }, tool: string) => (await request("GET", `/agents/${agent.id}/calls?tool=${tool}`)).body.calls as Recorded[];
const questionsOf = async (agent: { id: string }) => ((await request("GET", "/calls?status=awaiting_answer")).body.calls as Array<{ agentId: string }>).filter((asked) => asked.agentId === agent.id);

/** A v1 server of its own (so what reaches it is this test's alone), a group of it with `executor`, and an agent of that group. */
async function ownUpstream(executor: Record<string, unknown> = {}) {
  const upstream = await startV1Upstream();
  closing.push(() => upstream.close());
  return { upstream, ...(await moduleAgent(upstream.url, executor)) };
}

const FORMS = { elicitation: { form: {} } };
const LIN: ElicitResult = { action: "accept", content: { name: "lin" } };

test("eras meet - a 2025-era server's question during a 2026-07-28 client's call pauses the call for the client's own round trip: the answer reaches the server's waiting request, tools/call is sent once, and the call completes", async () => {
  const { upstream, agent, token, named } = await ownUpstream();
  const user = await connectModern(token, [LIN]);

  const result = await user.client.callTool({ name: named("ask"), arguments: {} });

  expect(textOf(result)).toBe('{"action":"accept","content":{"name":"lin"}}');
  expect(user.asked).toEqual([expect.objectContaining({ message: "Who are you?" })]);
  expect(upstream.outcomes).toEqual(['{"action":"accept","content":{"name":"lin"}}']);
  expect(upstream.called).toEqual(["ask"]);
  expect(await callsOf(agent, named("ask"))).toEqual([expect.objectContaining({ callId: (result._meta as { callId: string }).callId, status: "completed", inputRound: 1 })]);
  expect(await questionsOf(agent)).toEqual([]);
});

test("eras meet - a 2025-era server that asks twice in one call pauses it twice, and the same tools/call goes on each time", async () => {
  const { upstream, agent, token, named } = await ownUpstream();
  const user = await connectModern(token, [LIN, { action: "accept", content: { name: "Lisbon" } }]);

  const result = await user.client.callTool({ name: named("ask_twice"), arguments: {} });

  expect(textOf(result)).toBe('{"action":"accept","content":{"name":"lin"}}\n{"action":"accept","content":{"name":"Lisbon"}}');
  expect(user.asked.map((asked) => asked.message)).toEqual(["Who are you?", "Where are you?"]);
  expect(upstream.called).toEqual(["ask_twice"]);
  expect(await callsOf(agent, named("ask_twice"))).toEqual([expect.objectContaining({ status: "completed", inputRound: 2 })]);
});

test("eras meet - a 2026-07-28 client that declines, or cancels, has the server told so, and the call completes with what the server made of it", async () => {
  const { upstream, agent, token, named } = await ownUpstream();
  const user = await connectModern(token, [{ action: "decline" }, { action: "cancel" }]);

  expect(textOf(await user.client.callTool({ name: named("ask"), arguments: {} }))).toBe('{"action":"decline"}');
  expect(textOf(await user.client.callTool({ name: named("ask"), arguments: {} }))).toBe('{"action":"cancel"}');

  expect(upstream.outcomes).toEqual(['{"action":"decline"}', '{"action":"cancel"}']);
  expect(upstream.called).toEqual(["ask", "ask"]);
  expect((await callsOf(agent, named("ask"))).map((call) => call.status)).toEqual(["completed", "completed"]);
});

test("eras meet - a 2025-era server's sampling request reaches a 2026-07-28 client that declares sampling through its round trip", async () => {
  const { upstream, token, named } = await ownUpstream();
  const user = await connectModern(token, [], { sampling: {} });

  expect(textOf(await user.client.callTool({ name: named("sample"), arguments: { prompt: "Capital of France?" } }))).toContain("Paris");
  expect(user.sampled).toEqual([expect.objectContaining({ messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }] })]);
  expect(upstream.called).toEqual(["sample"]);
});

/** Pauses a call of `ask` as a 2026-07-28 client that takes forms; the pause. */
async function paused(token: string, tool: string) {
  const pause = (await postToolCall(served.url, token, { name: tool, arguments: {} }, FORMS)).result;
  expect(pause).toMatchObject({ resultType: "input_required", inputRequests: { upstream: { method: "elicitation/create", params: { message: "Who are you?" } } } });
  return pause as { requestState: string };
}

const goOn = (token: string, tool: string, requestState: string, answer: ElicitResult = LIN) =>
  postToolCall(served.url, token, { name: tool, arguments: {}, inputResponses: { upstream: answer }, requestState }, FORMS, 2).then((answered) => answered.result);

test("eras meet - a held call whose deadline passes is let go and recorded tool_timeout; answers sent after it are refused, and nothing is sent again", async () => {
  const { upstream, agent, token, named } = await ownUpstream({ timeoutMs: 1_000 });
  const pause = await paused(token, named("ask"));

  const [timedOut] = await eventually(() => callsOf(agent, named("ask")), (calls) => calls[0]?.status === "timed_out");
  expect(timedOut!.error).toMatchObject({ code: "tool_timeout" });

  const late = await goOn(token, named("ask"), pause.requestState);
  expect(late).toMatchObject({ isError: true, _meta: { code: "tool_timeout", callId: timedOut!.callId } });
  expect(upstream.called).toEqual(["ask"]);
  expect(upstream.outcomes.filter((outcome) => outcome.includes("lin"))).toEqual([]);
});

test("eras meet - answers that reach an instance not holding the call (here: after toolgate let go of it, as at shutdown) end it with executor_failed, saying to call again, and nothing is sent again", async () => {
  const { upstream, agent, token, named } = await ownUpstream();
  const pause = await paused(token, named("ask"));
  await closeMcpConnections();

  const answered = await goOn(token, named("ask"), pause.requestState);

  expect(answered).toMatchObject({ isError: true, _meta: { code: "executor_failed" } });
  expect(textOf(answered)).toMatch(/held open on the instance that paused it.*Make the call again\./);
  expect(upstream.called).toEqual(["ask"]);
  expect(await callsOf(agent, named("ask"))).toEqual([expect.objectContaining({ status: "error", error: expect.objectContaining({ code: "executor_failed" }) })]);
});

/** The state with one character of its middle changed. */
const altered = (state: string) => {
  const middle = Math.floor(state.length / 2);
  return `${state.slice(0, middle)}${state[middle] === "A" ? "B" : "A"}${state.slice(middle + 1)}`;
};

test("eras meet - a made-up request state, an altered one or another agent's is refused with -32602, never taken as a new call: the held call goes on only with its own agent's answer", async () => {
  const { upstream, group, agent, token, named } = await ownUpstream();
  const pause = await paused(token, named("ask"));
  const stranger = await agentWithGroups(request, [group]);
  const sendWith = (who: string, requestState: string) =>
    postToolCall(served.url, who, { name: named("ask"), arguments: {}, inputResponses: { upstream: LIN }, requestState }, FORMS, 2) as Promise<{ result?: unknown; error?: { code: number; message: string } }>;

  const refusals = [await sendWith(token, "v1.made-up"), await sendWith(token, altered(pause.requestState)), await sendWith(stranger.token, pause.requestState)];

  for (const refused of refusals) expect(refused).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32602, message: expect.stringMatching(/requestState is not one toolgate gave this agent/) } });
  expect(upstream.outcomes).toEqual([]);
  const held = await goOn(token, named("ask"), pause.requestState);
  expect(held).toMatchObject({ content: [{ type: "text", text: '{"action":"accept","content":{"name":"lin"}}' }] });
  expect(upstream.outcomes).toEqual(['{"action":"accept","content":{"name":"lin"}}']);
  expect(upstream.called).toEqual(["ask"]);
  expect((await callsOf(agent, named("ask"))).map((call) => call.status)).toEqual(["completed"]);
  expect(await callsOf(stranger.agent, named("ask"))).toEqual([]);
});

test("bad upstreams - garbage, a hang, a flood of notifications and a 50 MB resource each end their own call with a clear 502 or 504, and a call beside them runs", async () => {
  const upstream = await startV1Upstream();
  closing.push(() => upstream.close());
  const hurried = await moduleAgent(upstream.url, { timeoutMs: 1_000 });
  const { agent, token, named } = await moduleAgent(upstream.url, { timeoutMs: 20_000 });
  const beside = restCall(agent, token, named("count"), { steps: 20 });

  const [garbage, hang, flood, huge] = await Promise.all([
    restCall(agent, token, named("garbage")),
    restCall(hurried.agent, hurried.token, hurried.named("hang")),
    restCall(agent, token, named("flood"), { messages: 100_000, size: 10_000 }),
    restCall(agent, token, named("huge")),
  ]);

  expect(garbage.status, JSON.stringify(garbage.body)).toBe(502);
  expect(garbage.body).toMatchObject({ error: "executor_failed", message: expect.stringContaining("did not speak MCP") });
  expect(hang.status).toBe(504);
  expect(hang.body.error).toBe("tool_timeout");
  expect(flood.status, JSON.stringify(flood.body)).toBe(502);
  expect(flood.body).toMatchObject({ error: "executor_failed", message: expect.stringContaining("larger than 5 MiB") });
  expect(huge.status, JSON.stringify(huge.body)).toBe(502);
  expect(huge.body).toMatchObject({ error: "executor_failed", message: expect.stringContaining("larger than 5 MiB") });
  expect((await beside).body.result?.content).toBe("counted to 20");
  expect((await restCall(agent, token, named("echo"), { text: "after" })).body.result?.content).toBe("after");
});
