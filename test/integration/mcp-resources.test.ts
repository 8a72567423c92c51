import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Client, isInputRequiredResult, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { PROMPTS, RESOURCES, SIGNING, startResourcesUpstream } from "../support/resources-upstream";
import type { ResourcesUpstream } from "../support/resources-upstream";
import { slowly } from "../support/upstream-mcp";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let upstream: ResourcesUpstream;
const clients: Client[] = [];

beforeAll(async () => {
  [toolgate, upstream] = await Promise.all([testToolgate(), startResourcesUpstream()]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([served.close(), upstream.close()]);
});

const prefix = () => `r${randomUUID().slice(0, 6)}`;

/** A group served by the upstream, its tools, resources and prompts imported, and an agent whose role has it and one whose role has not. */
async function offeringGroup(extra: Record<string, unknown> = {}) {
  const id = unique("docs");
  const toolPrefix = prefix();
  const group = await putGroup(request, id, { description: "Docs and prompts.", executor: { type: "mcp", url: upstream.url, toolPrefix }, ...extra });
  const other = unique("other");
  await putGroup(request, other, { description: "Something else.", tools: [{ type: "function", function: { name: `${toolPrefix}_other`, description: "Other.", parameters: { type: "object", properties: {} } } }], executor: { type: "http", url: "http://127.0.0.1:9/" } });
  const [withGroup, without] = await Promise.all([agentWithGroups(request, [id]), agentWithGroups(request, [other])]);
  return { id, toolPrefix, group, withGroup, without };
}

async function mcpClient(token: string) {
  const client = new Client({ name: "resources-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** A client of the agent that takes forms, on 2026-07-28 (`modern`) or the 2025 era; its user signs as `signer`. */
async function signingClient(token: string, { modern, signer = "ada" }: { modern: boolean; signer?: string }) {
  const asked: string[] = [];
  const client = new Client({ name: "signing-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, ...(modern ? { versionNegotiation: { mode: "auto" as const } } : {}) });
  client.setRequestHandler("elicitation/create", async (elicit) => {
    asked.push(elicit.params.message);
    return { action: "accept", content: { name: signer } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return { client, asked };
}

const readUri = (agentId: string, token: string, uri: string) => request("GET", `/agents/${agentId}/resources/read?uri=${encodeURIComponent(uri)}`, { token });
const getPrompt = (agentId: string, token: string, name: string, args: Record<string, string> = {}) => request("POST", `/agents/${agentId}/prompts/${name}`, { token, body: { arguments: args } });

/** The JSON-RPC error a request was refused with: its code and toolgate's data. */
async function refusalOf(work: Promise<unknown>) {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError & { data: { code: string; callId?: string } };
}

test("PUT /groups/:id - an MCP server's resources, templates and prompts are imported with its tools, prompts named with the toolPrefix", async () => {
  const { toolPrefix, group } = await offeringGroup();
  expect(group.offers.resources.map((resource: { uri: string }) => resource.uri)).toEqual(RESOURCES.map((resource) => resource.uri));
  expect(group.offers.resourceTemplates).toEqual([{ uriTemplate: "notes://{topic}/today", name: "note", description: "Today's note on a topic." }]);
  expect(group.offers.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(PROMPTS.map((prompt) => `${toolPrefix}_${prompt.name}`));
});

test("GET /agents/:id/resources, /prompts - an agent whose role lacks the group sees none of them, and a read or get is refused as an unavailable tool", async () => {
  const { id, toolPrefix, without } = await offeringGroup();
  const resources = await request("GET", `/agents/${without.agent.id}/resources`, { token: without.token });
  expect(resources.body).toEqual({ agentId: without.agent.id, resources: [], resourceTemplates: [] });
  expect((await request("GET", `/agents/${without.agent.id}/prompts`, { token: without.token })).body.prompts).toEqual([]);

  const read = await readUri(without.agent.id, without.token, `toolgate://${id}/file:///docs/readme.md`);
  expect(read.status).toBe(403);
  expect(read.body).toMatchObject({ error: "tool_not_available", recoverable: false, callId: expect.any(String) });
  const unavailableTool = await request("POST", `/agents/${without.agent.id}/calls`, { token: without.token, body: { tool: `${toolPrefix}_echo`, arguments: {} } });
  expect(unavailableTool.body.error).toBe(read.body.error);
  const prompt = await getPrompt(without.agent.id, without.token, `${toolPrefix}_greet`);
  expect(prompt.status).toBe(403);
  expect(prompt.body.error).toBe("tool_not_available");
  expect(upstream.uses.filter((use) => use.params.uri === "file:///docs/readme.md" && use.headers["toolgate-call"] === undefined)).toEqual([]);
});

test("/mcp - an agent whose role lacks the group lists none of its resources or prompts, and reads and gets are refused with tool_not_available", async () => {
  const { id, toolPrefix, without } = await offeringGroup();
  const client = await mcpClient(without.token);
  expect((await client.listResources()).resources).toEqual([]);
  expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
  expect((await client.listPrompts()).prompts).toEqual([]);
  const read = await refusalOf(client.readResource({ uri: `toolgate://${id}/file:///docs/readme.md` }));
  expect(read.code).toBe(-32602);
  expect(read.data).toMatchObject({ code: "tool_not_available", recoverable: false });
  const got = await refusalOf(client.getPrompt({ name: `${toolPrefix}_greet` }));
  expect(got.data.code).toBe("tool_not_available");
});

test("GET /agents/:id/resources/read, POST /agents/:id/prompts/:name - an agent with the group reads and gets live, each recorded with its kind", async () => {
  const { id, toolPrefix, withGroup } = await offeringGroup();
  const { agent, token } = withGroup;
  const listed = await request("GET", `/agents/${agent.id}/resources`, { token });
  expect(listed.body.resources.map((resource: { uri: string }) => resource.uri)).toEqual(RESOURCES.map((resource) => `toolgate://${id}/${resource.uri}`));
  expect(listed.body.resourceTemplates[0]).toMatchObject({ uriTemplate: `toolgate://${id}/notes://{topic}/today`, group: id });

  const read = await readUri(agent.id, token, `toolgate://${id}/file:///docs/readme.md`);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.body).toEqual({ callId: expect.any(String), contents: [{ uri: "file:///docs/readme.md", mimeType: "text/plain", text: "contents of file:///docs/readme.md" }] });
  expect(upstream.uses.at(-1)).toMatchObject({ method: "resources/read", params: { uri: "file:///docs/readme.md" } });
  expect(upstream.uses.at(-1)!.headers["toolgate-call"]).toEqual(expect.any(String));

  const templated = await readUri(agent.id, token, `toolgate://${id}/notes://cedar/today`);
  expect(templated.status).toBe(200);
  expect(templated.body.contents[0].text).toBe("contents of notes://cedar/today");
  const unlisted = await readUri(agent.id, token, `toolgate://${id}/file:///etc/passwd`);
  expect(unlisted.status).toBe(403);
  expect(unlisted.body.error).toBe("tool_not_available");

  const prompt = await getPrompt(agent.id, token, `${toolPrefix}_summarize`, { text: "a long text" });
  expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
  expect(prompt.body).toMatchObject({ callId: expect.any(String), description: "prompt summarize", messages: [{ role: "user", content: { type: "text", text: 'summarize: {"text":"a long text"}' } }] });
  const missing = await getPrompt(agent.id, token, `${toolPrefix}_summarize`);
  expect(missing.status).toBe(400);
  expect(missing.body.error).toBe("invalid_arguments");

  const history = await request("GET", `/agents/${agent.id}/calls`, { token });
  const byId = new Map(history.body.calls.map((call: { callId: string }) => [call.callId, call]));
  expect(byId.get(read.body.callId)).toMatchObject({ kind: "resource", tool: "resources/read", group: id, status: "completed", arguments: { uri: `toolgate://${id}/file:///docs/readme.md` } });
  expect(byId.get(read.body.callId)).toMatchObject({ result: { content: "contents of file:///docs/readme.md", mcp: { blocks: [{ type: "resource", uri: "file:///docs/readme.md", bytes: 34 }] } } });
  expect(byId.get(prompt.body.callId)).toMatchObject({ kind: "prompt", tool: `${toolPrefix}_summarize`, status: "completed", arguments: { text: "a long text" } });
  expect(byId.get(unlisted.body.callId)).toMatchObject({ kind: "resource", status: "refused", error: { code: "tool_not_available" } });
  const one = await request("GET", `/agents/${agent.id}/calls/${read.body.callId}`, { token });
  expect(one.body.kind).toBe("resource");
});

test("/mcp - an agent with the group lists, reads, gets and completes; a tool's call record reads as kind tool", async () => {
  const { id, toolPrefix, withGroup } = await offeringGroup();
  const client = await mcpClient(withGroup.token);
  expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(`toolgate://${id}/data://logo`);
  expect((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual([`${toolPrefix}_greet`, `${toolPrefix}_sign`, `${toolPrefix}_summarize`]);
  const logo = await client.readResource({ uri: `toolgate://${id}/data://logo` });
  expect(logo.contents).toEqual([{ uri: "data://logo", mimeType: "image/png", blob: Buffer.from("png!").toString("base64") }]);
  expect(logo._meta).toMatchObject({ callId: expect.any(String) });
  const greet = await client.getPrompt({ name: `${toolPrefix}_greet` });
  expect(greet.messages[0]!.content).toEqual({ type: "text", text: "greet: {}" });

  const completion = await client.complete({ ref: { type: "ref/prompt", name: `${toolPrefix}_summarize` }, argument: { name: "style", value: "al" } });
  expect(completion.completion.values).toEqual(["alpha", "alps"]);
  expect(upstream.uses.at(-1)).toMatchObject({ method: "completion/complete", params: { ref: { type: "ref/prompt", name: "summarize" } } });
  const templateCompletion = await client.complete({ ref: { type: "ref/resource", uri: `toolgate://${id}/notes://{topic}/today` }, argument: { name: "topic", value: "b" } });
  expect(templateCompletion.completion.values).toEqual(["beta"]);
  expect(upstream.uses.at(-1)).toMatchObject({ params: { ref: { type: "ref/resource", uri: "notes://{topic}/today" } } });

  const tool = await client.callTool({ name: `${toolPrefix}_echo`, arguments: { text: "hi" } });
  const record = await request("GET", `/agents/${withGroup.agent.id}/calls/${tool._meta!.callId}`, { token: withGroup.token });
  expect(record.body.kind).toBe("tool");
});

test("completion/complete - a prompt the agent may not get is refused before anything reaches the server", async () => {
  const { toolPrefix, without } = await offeringGroup();
  const client = await mcpClient(without.token);
  const before = upstream.uses.length;
  const refused = await refusalOf(client.complete({ ref: { type: "ref/prompt", name: `${toolPrefix}_summarize` }, argument: { name: "style", value: "a" } }));
  expect(refused.data.code).toBe("tool_not_available");
  expect(upstream.uses.length).toBe(before);
});

test('Cedar - a forbid on Action::"resources/read" with context.uri like ... refuses those reads, REST and /mcp alike, and lets the rest run', async () => {
  const { id, withGroup } = await offeringGroup();
  const { agent, token } = withGroup;
  const cedar = `@reason("Secrets are not for agents.")\nforbid(principal, action == Action::"resources/read", resource == ToolGroup::"${id}") when { context.uri like "file:///secrets/*" };`;
  const saved = await request("PUT", `/policies/${unique("no_secrets")}`, { body: { scope: `agent:${agent.id}`, mode: "enforce", cedar } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  expect(saved.body.problems).toEqual([]);

  const refused = await readUri(agent.id, token, `toolgate://${id}/file:///secrets/keys.txt`);
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: "policy_denied", message: expect.stringContaining("Secrets are not for agents.") });
  const client = await mcpClient(token);
  const overMcp = await refusalOf(client.readResource({ uri: `toolgate://${id}/file:///secrets/keys.txt` }));
  expect(overMcp.data.code).toBe("policy_denied");
  expect((await readUri(agent.id, token, `toolgate://${id}/file:///docs/readme.md`)).status).toBe(200);
  expect(upstream.uses.some((use) => use.params.uri === "file:///secrets/keys.txt")).toBe(false);
  const record = await request("GET", `/agents/${agent.id}/calls/${refused.body.callId}`, { token });
  expect(record.body).toMatchObject({ kind: "resource", status: "refused", decision: { effect: "deny" } });
});

test("Cedar - a policy reading context.prompt and the prompt's arguments decides prompt gets", async () => {
  const { id, toolPrefix, withGroup } = await offeringGroup();
  const { agent, token } = withGroup;
  const cedar = `forbid(principal, action == Action::"prompts/get", resource in ToolGroup::"${id}") when { context.prompt == "${toolPrefix}_summarize" && context.input has style && context.input.style == "rude" };`;
  const saved = await request("PUT", `/policies/${unique("polite")}`, { body: { scope: `agent:${agent.id}`, mode: "enforce", cedar } });
  expect(saved.body.problems).toEqual([]);
  expect((await getPrompt(agent.id, token, `${toolPrefix}_summarize`, { text: "t", style: "rude" })).body.error).toBe("policy_denied");
  expect((await getPrompt(agent.id, token, `${toolPrefix}_summarize`, { text: "t", style: "kind" })).status).toBe(200);
});

test("offerPolicy - a group's rate limit applies to its reads, counted per agent", async () => {
  const { id, withGroup } = await offeringGroup({ offerPolicy: { rateLimit: { perHour: 2 } } });
  const { agent, token } = withGroup;
  const uri = `toolgate://${id}/file:///docs/readme.md`;
  expect((await readUri(agent.id, token, uri)).status).toBe(200);
  expect((await readUri(agent.id, token, `toolgate://${id}/notes://a/today`)).status).toBe(200);
  const limited = await readUri(agent.id, token, uri);
  expect(limited.status).toBe(429);
  expect(limited.body).toMatchObject({ error: "rate_limited", recoverable: true, retryAfterSeconds: expect.any(Number) });
  const client = await mcpClient(token);
  expect((await refusalOf(client.readResource({ uri }))).data.code).toBe("rate_limited");
});

test("resources/read - a 50 MB answer, garbage or a hang is executor_failed or tool_timeout, recorded, never a 500", async () => {
  const { id, withGroup } = await offeringGroup();
  const { agent, token } = withGroup;
  const uri = `toolgate://${id}/file:///docs/readme.md`;
  const impatient = await offeringGroup({ offerPolicy: { timeoutMs: 500 } });
  try {
    upstream.answerReads((asked) => ({ contents: [{ uri: asked, text: "x".repeat(50 * 1024 * 1024) }] }));
    const huge = await readUri(agent.id, token, uri);
    expect(huge.status).toBe(502);
    expect(huge.body).toMatchObject({ error: "executor_failed", message: expect.stringMatching(/MiB|large/) });

    upstream.answerReads(async (asked, signal) => {
      await slowly(10_000, signal);
      return { contents: [{ uri: asked, text: "late" }] };
    });
    const hanging = await readUri(impatient.withGroup.agent.id, impatient.withGroup.token, `toolgate://${impatient.id}/file:///docs/readme.md`);
    expect(hanging.status).toBe(504);
    expect(hanging.body.error).toBe("tool_timeout");

    upstream.answerReads((asked) => ({ contents: [{ uri: asked, text: "fine" }] }));
    upstream.garbleReads("this is not JSON-RPC {");
    const garbage = await readUri(agent.id, token, uri);
    expect(garbage.status).toBe(502);
    expect(garbage.body.error).toBe("executor_failed");
    const client = await mcpClient(token);
    expect((await refusalOf(client.readResource({ uri }))).data.code).toBe("executor_failed");

    const records = await request("GET", `/agents/${agent.id}/calls`, { token });
    expect(records.body.calls.map((call: { kind: string; error?: { code: string } }) => [call.kind, call.error?.code])).toEqual([
      ["resource", "executor_failed"],
      ["resource", "executor_failed"],
      ["resource", "executor_failed"],
    ]);
    const timedOut = await request("GET", `/agents/${impatient.withGroup.agent.id}/calls/${hanging.body.callId}`, { token: impatient.withGroup.token });
    expect(timedOut.body).toMatchObject({ kind: "resource", status: "timed_out" });
  } finally {
    upstream.garbleReads(undefined);
    upstream.answerReads((asked) => ({ contents: [{ uri: asked, mimeType: "text/plain", text: `contents of ${asked}` }] }));
  }
});

test("GET /agents/:id/resources/read - a server's own URI, as a client may know it, is read from the one group of the agent's that offers it; offered by two, it names neither", async () => {
  const { id, withGroup, without } = await offeringGroup();
  const bare = await readUri(withGroup.agent.id, withGroup.token, "file:///docs/readme.md");
  expect(bare.status, JSON.stringify(bare.body)).toBe(200);
  expect(bare.body.contents[0]).toMatchObject({ uri: "file:///docs/readme.md", text: "contents of file:///docs/readme.md" });
  expect((await readUri(withGroup.agent.id, withGroup.token, "notes://cedar/today")).body.contents[0].text).toBe("contents of notes://cedar/today");
  expect((await readUri(without.agent.id, without.token, "file:///docs/readme.md")).body.error).toBe("tool_not_available");

  const second = unique("docs");
  await putGroup(request, second, { description: "The same server again.", executor: { type: "mcp", url: upstream.url, toolPrefix: prefix() } });
  const both = await agentWithGroups(request, [id, second]);
  const ambiguous = await readUri(both.agent.id, both.token, "file:///docs/readme.md");
  expect(ambiguous.status).toBe(400);
  expect(ambiguous.body).toMatchObject({ error: "ambiguous_resource", message: expect.stringContaining(`toolgate://${second}/file:///docs/readme.md`) });
  const named = await readUri(both.agent.id, both.token, `toolgate://${second}/file:///docs/readme.md`);
  expect(named.status).toBe(200);
  const overMcp = await refusalOf((await mcpClient(both.token)).readResource({ uri: "file:///docs/readme.md" }));
  expect(overMcp.code).toBe(-32602);
  expect(overMcp.data.code).toBe("ambiguous_resource");
});

test("/mcp prompts/get, resources/read - a 2026-07-28 client answers what the server asks first and gets the prompt; each round is guarded and recorded as a use of its own", async () => {
  const { id, toolPrefix, withGroup } = await offeringGroup();
  const { agent, token } = withGroup;
  const { client, asked } = await signingClient(token, { modern: true });

  const signed = await client.getPrompt({ name: `${toolPrefix}_sign`, arguments: { text: "ship it" } });

  expect(signed.messages).toEqual([{ role: "user", content: { type: "text", text: "ship it (signed by ada)" } }]);
  expect(asked).toEqual(["Who signs?"]);
  const gets = upstream.uses.filter((use) => use.method === "prompts/get" && use.params.name === SIGNING.prompt).slice(-2);
  expect(gets.map((use) => use.params)).toEqual([
    { name: SIGNING.prompt, arguments: { text: "ship it" } },
    { name: SIGNING.prompt, arguments: { text: "ship it" }, inputResponses: { who: { action: "accept", content: { name: "ada" } } }, requestState: SIGNING.requestState },
  ]);
  expect(gets.map((use) => use.headers["toolgate-call"])).toEqual([expect.any(String), expect.any(String)]);
  const calls = (await request("GET", `/agents/${agent.id}/calls?tool=${toolPrefix}_sign`, { token })).body.calls as Array<Record<string, unknown>>;
  expect(calls.map(({ kind, status, arguments: args }) => ({ kind, status, args }))).toEqual([
    { kind: "prompt", status: "completed", args: { text: "ship it" } },
    { kind: "prompt", status: "completed", args: { text: "ship it" } },
  ]);
  expect(calls.map((call) => (call.result as { content: string }).content)).toEqual(["user: ship it (signed by ada)", expect.stringContaining("asked the agent's client for input (who: elicitation/create)")]);
  expect(signed._meta).toMatchObject({ callId: calls[0]!.callId });

  const read = await client.readResource({ uri: `toolgate://${id}/${SIGNING.uri}` });
  expect(read.contents).toEqual([{ uri: SIGNING.uri, mimeType: "text/plain", text: "read by ada" }]);
  expect(asked).toEqual(["Who signs?", "Who signs?"]);
});

/** The state with one character in its middle changed. */
const altered = (state: string) => {
  const at = Math.floor(state.length / 2);
  return `${state.slice(0, at)}${state[at] === "A" ? "B" : "A"}${state.slice(at + 1)}`;
};

test("/mcp prompts/get - a request state altered, or given for another agent, prompt or arguments, is -32602 and reaches no server; the one given goes on", async () => {
  const { id, toolPrefix, withGroup } = await offeringGroup();
  const other = await agentWithGroups(request, [id]);
  const { client } = await signingClient(withGroup.token, { modern: true });
  const { client: stranger } = await signingClient(other.token, { modern: true });
  const name = `${toolPrefix}_sign`;
  const paused = await client.getPrompt({ name, arguments: { text: "ship it" } }, { allowInputRequired: true });
  if (!isInputRequiredResult(paused)) throw new Error(`expected input_required, got ${JSON.stringify(paused)}`);
  expect(paused.inputRequests).toEqual({ who: { method: "elicitation/create", params: expect.objectContaining({ message: "Who signs?" }) } });
  expect(paused.requestState).toEqual(expect.any(String));
  expect(paused.requestState).not.toContain(SIGNING.requestState);
  const inputResponses = { who: { action: "accept", content: { name: "mallory" } } };
  const before = upstream.uses.length;

  const sentAgain = (who: Client, params: { name: string; arguments: Record<string, string> }, requestState: string) =>
    who.getPrompt({ ...params, inputResponses, requestState } as never, { allowInputRequired: true });
  const refusals = await Promise.all([
    refusalOf(sentAgain(client, { name, arguments: { text: "ship it" } }, altered(paused.requestState!))),
    refusalOf(sentAgain(client, { name, arguments: { text: "delete it" } }, paused.requestState!)),
    refusalOf(sentAgain(client, { name: `${toolPrefix}_summarize`, arguments: { text: "ship it" } }, paused.requestState!)),
    refusalOf(sentAgain(stranger, { name, arguments: { text: "ship it" } }, paused.requestState!)),
    refusalOf(client.readResource({ uri: `toolgate://${id}/${SIGNING.uri}`, inputResponses, requestState: paused.requestState } as never)),
  ]);

  for (const refusal of refusals) expect([refusal.code, refusal.message]).toEqual([-32602, expect.stringContaining("is not one toolgate gave this agent for this request")]);
  expect(upstream.uses.length).toBe(before);
  const goesOn = await sentAgain(client, { name, arguments: { text: "ship it" } }, paused.requestState!);
  expect(goesOn).toMatchObject({ messages: [{ content: { text: "ship it (signed by mallory)" } }] });
});

test("/mcp prompts/get - a 2025-era client, which has no input round trip, is refused with a sentence saying why, and nothing is asked", async () => {
  const { toolPrefix, withGroup } = await offeringGroup();
  const { client, asked } = await signingClient(withGroup.token, { modern: false });

  const refused = await refusalOf(client.getPrompt({ name: `${toolPrefix}_sign`, arguments: { text: "ship it" } }));

  expect(refused.code).toBe(-32603);
  expect(refused.data.code).toBe("executor_failed");
  expect(refused.message).toMatch(/asked the agent's client for input \(elicitation\/create\).*only to an MCP 2026-07-28 client/);
  expect(asked).toEqual([]);
  const record = await request("GET", `/agents/${withGroup.agent.id}/calls/${refused.data.callId}`, { token: withGroup.token });
  expect(record.body).toMatchObject({ kind: "prompt", status: "error", error: { code: "executor_failed" } });
});
