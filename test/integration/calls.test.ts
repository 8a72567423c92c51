import { afterAll, beforeAll, expect, test } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let group: string;
let bare: string;
const BIG = "x".repeat(20 * 1024);

const names = {
  echo: unique("echo"),
  fail: unique("fail"),
  slow: unique("slow"),
  big: unique("big"),
  reportsError: unique("reports_error"),
  notJson: unique("not_json"),
  bare: unique("bare"),
};

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor()]);
  request = api(toolgate);
  executor.respond(({ body }) => {
    switch (body?.tool) {
      case names.fail:
        return { status: 500, body: { oops: true } };
      case names.slow:
        return { delayMs: 3_000, body: { content: "too late" } };
      case names.big:
        return { body: { content: BIG, type: "text" } };
      case names.reportsError:
        return { body: { content: "disk full", type: "error" } };
      case names.notJson:
        return { rawBody: "<html>nope</html>" };
      default:
        return { body: { content: JSON.stringify({ echoed: body?.arguments }), type: "json" } };
    }
  });
  group = unique("exec");
  await putGroup(request, group, {
    description: "Tools run by a local HTTP executor",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      tool(names.echo, "Echo.", { type: "object", properties: {}, additionalProperties: true }),
      tool(names.fail),
      { ...tool(names.slow), "x-toolgate": { timeoutMs: 300 } },
      tool(names.big),
      tool(names.reportsError),
      tool(names.notJson),
    ],
  });
  bare = unique("bare_group");
  await putGroup(request, bare, { description: "No executor bound", tools: [tool(names.bare)] });
});

afterAll(async () => {
  await executor?.close();
});

const callAs = (agent: { agent: { id: string }; token: string }, toolName: string, args: Record<string, unknown> = {}) =>
  request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: args } });

const readCall = async (agentId: string, callId: string) => {
  const response = await request("GET", `/agents/${agentId}/calls/${callId}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

test("POST /agents/:id/calls - runs the tool on its executor and answers 200 { callId, status: completed, result }", async () => {
  const agent = await agentWithGroups(request, [group]);
  const response = await callAs(agent, names.echo, { query: "weather", n: 2 });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toEqual({
    callId: expect.stringMatching(/^call_/),
    status: "completed",
    result: { content: JSON.stringify({ echoed: { query: "weather", n: 2 } }), type: "json" },
  });
  const received = executor.requests.filter((r) => r.body?.callId === response.body.callId);
  expect(received).toHaveLength(1);
  expect(received[0]!.method).toBe("POST");
  expect(received[0]!.path).toBe("/run");
  expect(received[0]!.headers["content-type"]).toContain("application/json");
  expect(received[0]!.body).toEqual({
    callId: response.body.callId,
    tool: names.echo,
    arguments: { query: "weather", n: 2 },
    agentId: agent.agent.id,
    roleId: agent.role.id,
  });

  const record = await readCall(agent.agent.id, response.body.callId);
  expect(record).toMatchObject({
    callId: response.body.callId,
    agentId: agent.agent.id,
    roleId: agent.role.id,
    tool: names.echo,
    group,
    status: "completed",
    arguments: { query: "weather", n: 2 },
    result: { content: JSON.stringify({ echoed: { query: "weather", n: 2 } }), type: "json" },
  });
  expect(Date.parse(record.finishedAt)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
});

test("POST /agents/:id/calls - a tool result of type error is recorded with status error", async () => {
  const agent = await agentWithGroups(request, [group]);
  const response = await callAs(agent, names.reportsError);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ status: "error", result: { content: "disk full", type: "error" } });
  expect((await readCall(agent.agent.id, response.body.callId)).status).toBe("error");
});

test("POST /agents/:id/calls - an unknown tool is 404 unknown_tool, recorded as refused, nothing runs", async () => {
  const agent = await agentWithGroups(request, [group]);
  const before = executor.requests.length;
  const ghost = unique("ghost");
  const response = await callAs(agent, ghost, { a: 1 });
  expect(response.status).toBe(404);
  expect(response.body).toMatchObject({ error: "unknown_tool", toolName: ghost });
  expect(typeof response.body.message).toBe("string");
  expect(executor.requests.length).toBe(before);
  const history = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ tool: ghost, status: "refused", agentId: agent.agent.id, error: { code: "unknown_tool" } });
});

test("POST /agents/:id/calls - a tool outside the role's groups is 403 tool_not_available with toolName, recorded as refused", async () => {
  const agent = await agentWithGroups(request, ["workspace"]);
  const before = executor.requests.length;
  const response = await callAs(agent, names.echo, { q: 1 });
  expect(response.status).toBe(403);
  expect(response.body).toMatchObject({ error: "tool_not_available", toolName: names.echo });
  expect(response.body.message).toContain(names.echo);
  expect(executor.requests.length).toBe(before);
  const history = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ tool: names.echo, status: "refused", error: { code: "tool_not_available" } });
});

test("POST /agents/:id/calls - a group without an executor is 501 no_executor, recorded as refused", async () => {
  const agent = await agentWithGroups(request, [bare]);
  const response = await callAs(agent, names.bare);
  expect(response.status).toBe(501);
  expect(response.body).toMatchObject({ error: "no_executor", toolName: names.bare });
  const history = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ tool: names.bare, group: bare, status: "refused", error: { code: "no_executor" } });
});

test("POST /agents/:id/calls - an executor answering 500 is 502 executor_failed, recorded as error", async () => {
  const agent = await agentWithGroups(request, [group]);
  const response = await callAs(agent, names.fail);
  expect(response.status).toBe(502);
  expect(response.body.error).toBe("executor_failed");
  expect(typeof response.body.message).toBe("string");
  expect(executor.requestsFor(names.fail).length).toBeGreaterThan(0);
  const history = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
  expect(history[0]).toMatchObject({ tool: names.fail, status: "error", error: { code: "executor_failed" } });
});

test("POST /agents/:id/calls - an executor answering something that is not a tool result is 502 executor_failed", async () => {
  const agent = await agentWithGroups(request, [group]);
  const response = await callAs(agent, names.notJson);
  expect(response.status).toBe(502);
  expect(response.body.error).toBe("executor_failed");
});

test("POST /agents/:id/calls - an unreachable executor is 502 executor_failed", async () => {
  const dead = await startExecutor();
  const deadUrl = dead.url;
  await dead.close();
  const id = unique("dead");
  const name = unique("dead_tool");
  await putGroup(request, id, { description: "x", executor: { type: "http", url: deadUrl }, tools: [tool(name)] });
  const agent = await agentWithGroups(request, [id]);
  const response = await callAs(agent, name);
  expect(response.status).toBe(502);
  expect(response.body.error).toBe("executor_failed");
  expect((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls[0].status).toBe("error");
});

test("POST /agents/:id/calls - an executor slower than x-toolgate timeoutMs is 504 tool_timeout, recorded as timed_out", async () => {
  const agent = await agentWithGroups(request, [group]);
  const started = Date.now();
  const response = await callAs(agent, names.slow);
  const took = Date.now() - started;
  expect(response.status).toBe(504);
  expect(response.body.error).toBe("tool_timeout");
  expect(took, "answered without waiting for the executor's answer, which comes after 3 s").toBeLessThan(3_000);
  const history = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls;
  expect(history[0]).toMatchObject({ tool: names.slow, status: "timed_out" });
});

test("POST /agents/:id/calls - the admin token cannot make calls: 403", async () => {
  const agent = await agentWithGroups(request, [group]);
  const before = executor.requests.length;
  const response = await request("POST", `/agents/${agent.agent.id}/calls`, { body: { tool: names.echo, arguments: {} } });
  expect(response.status).toBe(403);
  expect(typeof response.body.error).toBe("string");
  expect(executor.requests.length).toBe(before);
  expect((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls).toEqual([]);
});

test("GET /agents/:id/calls - newest first, and limit/cursor pages cover every call once", async () => {
  const agent = await agentWithGroups(request, [group]);
  const made: string[] = [];
  for (let i = 0; i < 7; i++) {
    const response = i % 3 === 2 ? await callAs(agent, unique("ghost")) : await callAs(agent, names.echo, { i });
    made.push(response.body.callId);
  }
  const all = await request("GET", `/agents/${agent.agent.id}/calls?limit=100`);
  expect(all.status).toBe(200);
  expect(all.body.calls.map((c: { callId: string }) => c.callId)).toEqual([...made].reverse());
  expect(all.body.nextCursor).toBeUndefined();

  const paged: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const query = `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await request("GET", `/agents/${agent.agent.id}/calls${query}`, { token: agent.token });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.calls.length).toBeLessThanOrEqual(3);
    paged.push(...page.body.calls.map((c: { callId: string }) => c.callId));
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  expect(cursor).toBeUndefined();
  expect(paged).toEqual([...made].reverse());
});

test("GET /agents/:id/calls - a bad cursor is 400 invalid_cursor", async () => {
  const a = await agentWithGroups(request, [group]);
  const b = await agentWithGroups(request, [group]);
  for (let i = 0; i < 3; i++) await callAs(a, names.echo, { i });
  const first = await request("GET", `/agents/${a.agent.id}/calls?limit=1`);
  const foreign = first.body.nextCursor as string;
  expect(typeof foreign).toBe("string");
  for (const cursor of ["garbage", "eyJwayI6IjEifQ", Buffer.from("[1,2]").toString("base64url"), foreign]) {
    const owner = cursor === foreign ? b : a;
    const response = await request("GET", `/agents/${owner.agent.id}/calls?cursor=${encodeURIComponent(cursor)}`);
    expect(response.status, cursor).toBe(400);
    expect(response.body.error, cursor).toBe("invalid_cursor");
    expect(typeof response.body.message).toBe("string");
  }
});

test("GET /agents/:id/calls/:callId - one call; an unknown call is 404", async () => {
  const agent = await agentWithGroups(request, [group]);
  const made = await callAs(agent, names.echo, { one: true });
  const own = await request("GET", `/agents/${agent.agent.id}/calls/${made.body.callId}`, { token: agent.token });
  expect(own.status).toBe(200);
  expect(own.body).toMatchObject({ callId: made.body.callId, tool: names.echo, status: "completed" });
  const missing = await request("GET", `/agents/${agent.agent.id}/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV`);
  expect(missing.status).toBe(404);
  expect(typeof missing.body.error).toBe("string");
  // Another agent's call id is not found under this agent.
  const other = await agentWithGroups(request, [group]);
  expect((await request("GET", `/agents/${other.agent.id}/calls/${made.body.callId}`)).status).toBe(404);
});

test("POST /agents/:id/calls - secret-looking argument keys are stored as [REDACTED] at any depth while the executor gets the real values", async () => {
  const agent = await agentWithGroups(request, [group]);
  const args = {
    query: "keep me",
    password: "hunter2",
    API_KEY: "k-1",
    nested: {
      apiKey: "k-2",
      Authorization: "Bearer abc",
      list: [{ token: "t-1", label: "visible" }, { Secret: "s-1" }],
      api_key: "k-3",
    },
  };
  const response = await callAs(agent, names.echo, args);
  expect(response.status).toBe(200);
  const received = executor.requests.find((r) => r.body?.callId === response.body.callId)!;
  expect(received.body.arguments).toEqual(args);
  const record = await readCall(agent.agent.id, response.body.callId);
  expect(record.arguments).toEqual({
    query: "keep me",
    password: "[REDACTED]",
    API_KEY: "[REDACTED]",
    nested: {
      apiKey: "[REDACTED]",
      Authorization: "[REDACTED]",
      list: [{ token: "[REDACTED]", label: "visible" }, { Secret: "[REDACTED]" }],
      api_key: "[REDACTED]",
    },
  });
  const listed = (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls[0];
  expect(JSON.stringify(listed.arguments)).not.toMatch(/hunter2|k-1|k-2|k-3|Bearer abc|t-1|s-1/);
});

test("POST /agents/:id/calls - a result over 16 KiB reaches the caller whole and is stored truncated", async () => {
  const agent = await agentWithGroups(request, [group]);
  const response = await callAs(agent, names.big);
  expect(response.status).toBe(200);
  expect(response.body.result.content).toBe(BIG);
  expect(response.body.result.truncated).toBeUndefined();
  const record = await readCall(agent.agent.id, response.body.callId);
  expect(record.result.truncated).toBe(true);
  expect(record.result.content.length).toBeGreaterThan(0);
  expect(record.result.content.length).toBeLessThan(BIG.length);
  expect(BIG.startsWith(record.result.content)).toBe(true);
  expect(Buffer.byteLength(JSON.stringify(record.result))).toBeLessThanOrEqual(16 * 1024);
});

test("POST /agents/:id/calls - call records carry an expiry about the retention period ahead", async () => {
  const agent = await agentWithGroups(request, [group]);
  const completed = await callAs(agent, names.echo);
  const refused = await callAs(agent, unique("ghost"));
  const now = Math.floor(Date.now() / 1000);
  for (const callId of [completed.body.callId, refused.body.callId]) {
    expect(typeof callId).toBe("string");
    const { Item } = await toolgate.db.doc.send(
      new GetCommand({ TableName: toolgate.db.table, Key: { pk: `AGENT#${agent.agent.id}`, sk: `CALL#${callId}` }, ConsistentRead: true }),
    );
    expect(Item, callId).toBeDefined();
    expect(typeof Item!.expiresAt).toBe("number");
    expect(Item!.expiresAt).toBeGreaterThan(now + 29 * 86_400);
    expect(Item!.expiresAt).toBeLessThan(now + 31 * 86_400);
  }
});

test("POST /agents/:id/calls - an agent's calls are its own: another agent's path is 403 and nothing runs", async () => {
  const a = await agentWithGroups(request, [group]);
  const b = await agentWithGroups(request, [group]);
  const before = executor.requests.length;
  const response = await request("POST", `/agents/${b.agent.id}/calls`, { token: a.token, body: { tool: names.echo, arguments: {} } });
  expect(response.status).toBe(403);
  expect(executor.requests.length).toBe(before);
  expect((await request("GET", `/agents/${b.agent.id}/calls`)).body.calls).toEqual([]);
  expect((await request("GET", `/agents/${a.agent.id}/calls`)).body.calls).toEqual([]);
  expect((await request("GET", `/agents/${b.agent.id}/calls`, { token: a.token })).status).toBe(403);
});
