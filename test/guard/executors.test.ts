import { afterAll, beforeAll, expect, test } from "vitest";
import { api, testToolgate } from "../support/toolgate";
import { agentOn, callTool, guarded, httpGroup, policyTool, readCall, unique } from "./helpers";
import type { Guarded } from "./helpers";
import { WALK_MARGIN_MS } from "../../packages/core/src/cleanup";

let g: Guarded;
const names = {
  fail: unique("fail"),
  slow: unique("slow"),
  notJson: unique("not_json"),
  badShape: unique("bad_shape"),
  reportsError: unique("reports_error"),
  text: unique("text"),
};

beforeAll(async () => {
  g = await guarded({ clientResultTimeoutMs: 4_000, defaultTimeoutMs: 1_000 });
  g.executor.respond(({ body }) => {
    switch (body?.tool) {
      case names.fail:
        return { status: 500, body: { error: "boom" } };
      case names.slow:
        return { delayMs: 2_000, body: { content: "too late" } };
      case names.notJson:
        return { rawBody: "<html>oops</html>" };
      case names.badShape:
        return { body: { output: 42 } };
      case names.reportsError:
        return { body: { content: "disk full", type: "error" } };
      case names.text:
        return { body: { content: "plain words" } };
      default:
        if (String(body?.tool).startsWith("sleepy")) return { delayMs: 2_000, body: { content: "too late" } };
        return { body: { content: JSON.stringify(body?.arguments ?? null), type: "json" } };
    }
  });
});

afterAll(async () => {
  await g?.close();
});

async function agentFor(...tools: unknown[]) {
  const group = await httpGroup(g.request, g.executor, tools);
  return agentOn(g.request, [group]);
}

test("http executor - receives { callId, tool, arguments, agentId, roleId } as JSON and its result comes back 200 completed", async () => {
  const name = unique("echo");
  const caller = await agentFor(policyTool(name));
  const response = await callTool(g.request, caller, name, { q: "x" });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toEqual({ callId: expect.stringMatching(/^call_/), status: "completed", result: { content: '{"q":"x"}', type: "json" } });
  const [received] = g.executor.requestsFor(name);
  expect(received!.method).toBe("POST");
  expect(received!.headers["content-type"]).toMatch(/application\/json/);
  expect(received!.body).toEqual({ callId: response.body.callId, tool: name, arguments: { q: "x" }, agentId: caller.agent.id, roleId: caller.agent.roleId });
});

test("http executor - a result without a type is text", async () => {
  const caller = await agentFor(policyTool(names.text));
  const response = await callTool(g.request, caller, names.text, {});
  expect(response.body.result).toEqual({ content: "plain words", type: "text" });
});

test("http executor - a tool reporting an error result is 200 with status error, recorded as error", async () => {
  const caller = await agentFor(policyTool(names.reportsError));
  const response = await callTool(g.request, caller, names.reportsError, {});
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ status: "error", result: { content: "disk full", type: "error" } });
  expect(await readCall(g.request, caller.agent.id, response.body.callId)).toMatchObject({ status: "error", result: { content: "disk full", type: "error" } });
});

test("http executor - an executor answering 500, non-JSON or a non-result is 502 executor_failed, recorded as error", async () => {
  const caller = await agentFor(policyTool(names.fail), policyTool(names.notJson), policyTool(names.badShape));
  for (const name of [names.fail, names.notJson, names.badShape]) {
    const response = await callTool(g.request, caller, name, {});
    expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(502);
    expect(response.body).toMatchObject({ error: "executor_failed", recoverable: false, callId: expect.any(String) });
    expect(response.body.message).not.toMatch(/at .*\.ts:\d+/);
    expect(await readCall(g.request, caller.agent.id, response.body.callId)).toMatchObject({
      status: "error",
      error: { code: "executor_failed" },
      finishedAt: expect.any(String),
      durationMs: expect.any(Number),
    });
  }
});

test("http executor - an unreachable executor is 502 executor_failed", async () => {
  const name = unique("gone");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)], { executor: { type: "http", url: "http://127.0.0.1:9/run" } });
  const caller = await agentOn(g.request, [group]);
  const response = await callTool(g.request, caller, name, {});
  expect(response.status, JSON.stringify(response.body)).toBe(502);
  expect(response.body.error).toBe("executor_failed");
  expect((await readCall(g.request, caller.agent.id, response.body.callId)).status).toBe("error");
});

test("http executor - a call past timeoutMs is aborted: 504 tool_timeout, recorded as timed_out", async () => {
  const caller = await agentFor(policyTool(names.slow, { timeoutMs: 300 }));
  const started = Date.now();
  const response = await callTool(g.request, caller, names.slow, {});
  expect(Date.now() - started).toBeLessThan(1_800);
  expect(response.status, JSON.stringify(response.body)).toBe(504);
  expect(response.body).toMatchObject({ error: "tool_timeout", timeoutMs: 300, callId: expect.any(String) });
  expect(await readCall(g.request, caller.agent.id, response.body.callId)).toMatchObject({ status: "timed_out", error: { code: "tool_timeout" } });
});

test("http executor - the executor's own timeoutMs applies when the policy sets none", async () => {
  const name = unique("sleepy");
  const viaExecutor = unique("grp");
  const put = await g.request("PUT", `/groups/${viaExecutor}`, {
    body: { description: "Slow executor", executor: { type: "http", url: `${g.executor.url}/run`, timeoutMs: 200 }, tools: [policyTool(name)] },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  const caller = await agentOn(g.request, [viaExecutor]);
  const response = await callTool(g.request, caller, name, { a: 1 });
  expect(response.status).toBe(504);
  expect(response.body.timeoutMs).toBe(200);
});

test("http executor - the policy's timeoutMs wins over the executor's", async () => {
  const name = unique("sleepy");
  const viaExecutor = unique("grp");
  await g.request("PUT", `/groups/${viaExecutor}`, {
    body: { description: "Slow executor", executor: { type: "http", url: `${g.executor.url}/run`, timeoutMs: 5_000 }, tools: [policyTool(name, { timeoutMs: 150 })] },
  });
  const caller = await agentOn(g.request, [viaExecutor]);
  const response = await callTool(g.request, caller, name, {});
  expect(response.status).toBe(504);
  expect(response.body.timeoutMs).toBe(150);
});

test("http executor - with no timeout in the policy or executor, defaultTimeoutMs applies", async () => {
  const name = unique("sleepy");
  const caller = await agentFor(policyTool(name));
  const response = await callTool(g.request, caller, name, {});
  expect(response.status).toBe(504);
  expect(response.body.timeoutMs).toBe(1_000);
  expect((await readCall(g.request, caller.agent.id, response.body.callId)).status).toBe("timed_out");
});

// Client executor: workspace tools run in the agent's runtime.

async function workspaceAgent(request = g.request) {
  return agentOn(request, ["workspace"]);
}

test("client executor - a workspace call is 202 authorized with the arguments, schema defaults applied, and nothing runs in toolgate", async () => {
  const caller = await workspaceAgent();
  const response = await callTool(g.request, caller, "read_file", { path: "src/a.ts" });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toEqual({
    callId: expect.stringMatching(/^call_/),
    status: "authorized",
    tool: "read_file",
    arguments: { path: "src/a.ts", limit: 2000 },
    startedAt: expect.any(String),
    deadline: expect.any(String),
  });
  expect(await readCall(g.request, caller.agent.id, response.body.callId)).toMatchObject({ status: "authorized", group: "workspace", arguments: { path: "src/a.ts", limit: 2000 } });
  expect(g.executor.requestsFor("read_file")).toHaveLength(0);
});

test("client executor - a workspace call with invalid arguments is still refused 400 by the guard", async () => {
  const caller = await workspaceAgent();
  const response = await callTool(g.request, caller, "read_file", { path: "a", limit: 0, extra: true });
  expect(response.status).toBe(400);
  expect(response.body.error).toBe("invalid_arguments");
});

test("POST /agents/:id/calls/:callId/result - the first report completes the call with the result stored; a second is 409", async () => {
  const caller = await workspaceAgent();
  const { body } = await callTool(g.request, caller, "list_files", {});
  const path = `/agents/${caller.agent.id}/calls/${body.callId}/result`;
  const reported = await g.request("POST", path, { token: caller.token, body: { content: "a.ts\nb.ts", type: "text" } });
  expect(reported.status, JSON.stringify(reported.body)).toBe(200);
  expect(reported.body).toMatchObject({ callId: body.callId, status: "completed", result: { content: "a.ts\nb.ts", type: "text" } });
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({
    status: "completed",
    result: { content: "a.ts\nb.ts", type: "text" },
    finishedAt: expect.any(String),
    durationMs: expect.any(Number),
  });
  const again = await g.request("POST", path, { token: caller.token, body: { content: "other" } });
  expect(again.status, JSON.stringify(again.body)).toBe(409);
  expect((await readCall(g.request, caller.agent.id, body.callId)).result.content).toBe("a.ts\nb.ts");
});

test("POST /agents/:id/calls/:callId/result - an error result records status error", async () => {
  const caller = await workspaceAgent();
  const { body } = await callTool(g.request, caller, "read_file", { path: "missing.txt" });
  const reported = await g.request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, {
    token: caller.token,
    body: { content: "ENOENT", type: "error" },
  });
  expect(reported.status).toBe(200);
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("error");
});

test("POST /agents/:id/calls/:callId/result - only the calling agent may report: another agent's token and the admin's are 403", async () => {
  const caller = await workspaceAgent();
  const other = await workspaceAgent();
  const { body } = await callTool(g.request, caller, "get_workspace_info", {});
  const path = `/agents/${caller.agent.id}/calls/${body.callId}/result`;
  expect((await g.request("POST", path, { token: other.token, body: { content: "forged" } })).status).toBe(403);
  expect((await g.request("POST", path, { body: { content: "forged" } })).status).toBe(403);
  expect((await g.request("POST", `/agents/${other.agent.id}/calls/${body.callId}/result`, { token: other.token, body: { content: "forged" } })).status).toBe(404);
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("authorized");
});

test("POST /agents/:id/calls/:callId/result - a malformed result is 400 and leaves the call authorized", async () => {
  const caller = await workspaceAgent();
  const { body } = await callTool(g.request, caller, "get_workspace_info", {});
  const path = `/agents/${caller.agent.id}/calls/${body.callId}/result`;
  for (const result of [{}, { content: 1 }, { content: "x", type: "binary" }, { content: "x", extra: 1 }]) {
    const response = await g.request("POST", path, { token: caller.token, body: result });
    expect(response.status, JSON.stringify(result)).toBe(400);
  }
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("authorized");
});

test("POST /agents/:id/calls/:callId/result - a call that was not authorized for the client (an http call) is 409", async () => {
  const name = unique("echo");
  const caller = await agentFor(policyTool(name));
  const { body } = await callTool(g.request, caller, name, {});
  const response = await g.request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content: "x" } });
  expect(response.status).toBe(409);
});

test("cleanup - an authorized call whose result never came expires after the client timeout, and a late report is 409", async () => {
  const caller = await workspaceAgent();
  const { body } = await callTool(g.request, caller, "read_file", { path: "late.txt" });
  await g.toolgate.cleanup(new Date());
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("authorized");
  // Not indexed: cleanup finds it by walking the agent's calls, a margin behind its own clock.
  await g.toolgate.cleanup(new Date(Date.now() + 10_000 + WALK_MARGIN_MS));
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({ status: "expired", error: { code: "result_not_reported" } });
  const late = await g.request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content: "x" } });
  expect(late.status).toBe(409);
});

test("PUT /groups/workspace/executor - after an admin binds an http executor, read_file runs through it (200)", async () => {
  const toolgate = await testToolgate();
  const request = api(toolgate);
  const caller = await workspaceAgent(request);
  expect((await callTool(request, caller, "read_file", { path: "before.txt" })).status).toBe(202);

  expect((await request("PUT", "/groups/workspace/executor", { token: caller.token, body: { type: "http", url: `${g.executor.url}/ws` } })).status).toBe(403);
  const bound = await request("PUT", "/groups/workspace/executor", { body: { type: "http", url: `${g.executor.url}/ws` } });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  expect(bound.body.executor).toEqual({ type: "http", url: `${g.executor.url}/ws` });

  const response = await callTool(request, caller, "read_file", { path: "after.txt" });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toMatchObject({ status: "completed", result: { content: JSON.stringify({ path: "after.txt", limit: 2000 }), type: "json" } });
  const received = g.executor.requests.filter((r) => r.path === "/ws");
  expect(received).toHaveLength(1);
  expect(received[0]!.body).toMatchObject({ tool: "read_file", arguments: { path: "after.txt", limit: 2000 }, agentId: caller.agent.id });
});

test("PUT /groups/:id/executor - native is only for org_management and artifact; an unknown group is 404", async () => {
  const toolgate = await testToolgate();
  const request = api(toolgate);
  const native = await request("PUT", "/groups/workspace/executor", { body: { type: "native" } });
  expect(native.status).toBe(400);
  expect((await request("PUT", `/groups/${unique("ghost")}/executor`, { body: { type: "client" } })).status).toBe(404);
  expect((await request("PUT", "/groups/workspace/executor", { body: { type: "http", url: "ftp://x" } })).status).toBe(400);
});
