import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, callTool, expectRefused, guarded, httpGroup, policyTool, readCall, unique, withinOneMinuteWindow } from "./helpers";
import type { Guarded } from "./helpers";
import { api, testToolgate } from "../support/toolgate";

let g: Guarded;

beforeAll(async () => {
  g = await guarded();
});

afterAll(async () => {
  await g?.close();
});

const SEARCH_PARAMETERS = {
  type: "object",
  properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, default: 10 } },
  required: ["query"],
};

/** A fresh http group with one tool under the given policy, and an agent whose role has the group. */
async function setup(policy?: Record<string, unknown>, parameters?: Record<string, unknown>, agent: Record<string, unknown> = {}) {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, policy, parameters)]);
  const caller = await agentOn(g.request, [group], agent);
  return { name, group, caller };
}

test("POST /agents/:id/calls - a tool that exists nowhere is 404 unknown_tool, not recoverable, recorded as refused", async () => {
  const { caller } = await setup();
  const name = unique("ghost");
  const response = await callTool(g.request, caller, name, { any: "thing" });
  const record = await expectRefused(g.request, caller.agent.id, response, 404, "unknown_tool", false);
  expect(response.body.toolName).toBe(name);
  expect(record).toMatchObject({ tool: name, group: null, arguments: { any: "thing" } });
});

test("POST /agents/:id/calls - a tool outside the role's groups is 403 tool_not_available naming it, and the executor is not called", async () => {
  const { name, group } = await setup();
  const other = await httpGroup(g.request, g.executor, [policyTool(unique("other"))]);
  const outsider = await agentOn(g.request, [other]);
  const response = await callTool(g.request, outsider, name, {});
  const record = await expectRefused(g.request, outsider.agent.id, response, 403, "tool_not_available", false);
  expect(response.body.toolName).toBe(name);
  expect(response.body.message).toContain(name);
  expect(record.group).toBe(group);
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /tools/:name/disable - the next call is 403 tool_disabled, and POST /tools/:name/enable restores the tool", async () => {
  const { name, caller } = await setup();
  const disabled = await g.request("POST", `/tools/${name}/disable`);
  expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
  expect(disabled.body).toMatchObject({ name, policy: { disabled: true } });

  const refused = await callTool(g.request, caller, name, { n: 1 });
  await expectRefused(g.request, caller.agent.id, refused, 403, "tool_disabled", false);
  expect(refused.body.toolName).toBe(name);
  expect(g.executor.requestsFor(name)).toHaveLength(0);

  const enabled = await g.request("POST", `/tools/${name}/enable`);
  expect(enabled.status).toBe(200);
  expect(enabled.body.policy.disabled).toBe(false);
  const ran = await callTool(g.request, caller, name, { n: 2 });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body.status).toBe("completed");
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("POST /tools/:name/disable - only the admin may switch tools, and unknown tools are 404", async () => {
  const { name, caller } = await setup();
  expect((await g.request("POST", `/tools/${name}/disable`, { token: caller.token })).status).toBe(403);
  expect((await g.request("POST", `/tools/${name}/disable`, { token: null })).status).toBe(401);
  expect((await g.request("PUT", `/tools/${name}/policy`, { token: caller.token, body: { dangerous: false } })).status).toBe(403);
  expect((await g.request("GET", `/tools/${name}`, { token: caller.token })).status).toBe(403);
  const missing = await g.request("POST", `/tools/${unique("ghost")}/disable`);
  expect(missing.status).toBe(404);
  expect(missing.body.error).toBe("unknown_tool");
  expect((await callTool(g.request, caller, name, {})).status).toBe(200);
});

test("POST /agents/:id/calls - allowedRoles admits the named roles in any case and refuses others with 403 permission_denied", async () => {
  const roleName = unique("Auditor");
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedRoles: [roleName.toLowerCase()] })]);
  const auditor = await agentOn(g.request, [group], {}, roleName.toUpperCase());
  const intern = await agentOn(g.request, [group]);

  expect((await callTool(g.request, auditor, name, {})).status).toBe(200);
  const refused = await callTool(g.request, intern, name, {});
  await expectRefused(g.request, intern.agent.id, refused, 403, "permission_denied", false);
  expect(refused.body.reason).toEqual(expect.stringContaining(roleName.toLowerCase()));
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("POST /agents/:id/calls - allowedDepartments checks the department the agent was created with", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { allowedDepartments: ["finance"] })]);
  const finance = await agentOn(g.request, [group], { department: "finance" });
  const sales = await agentOn(g.request, [group], { department: "sales" });
  const none = await agentOn(g.request, [group]);

  expect((await callTool(g.request, finance, name, {})).status).toBe(200);
  const wrong = await callTool(g.request, sales, name, {});
  await expectRefused(g.request, sales.agent.id, wrong, 403, "permission_denied", false);
  expect(wrong.body.message).toMatch(/sales/);
  const missing = await callTool(g.request, none, name, {});
  await expectRefused(g.request, none.agent.id, missing, 403, "permission_denied", false);
  expect(missing.body.message).toMatch(/not set/);
});

test("POST /agents/:id/calls - minLevel checks the level the agent was created with; no level is refused", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { minLevel: 3 })]);
  const senior = await agentOn(g.request, [group], { level: 3 });
  const junior = await agentOn(g.request, [group], { level: 2 });
  const none = await agentOn(g.request, [group]);

  expect((await callTool(g.request, senior, name, {})).status).toBe(200);
  await expectRefused(g.request, junior.agent.id, await callTool(g.request, junior, name, {}), 403, "permission_denied", false);
  await expectRefused(g.request, none.agent.id, await callTool(g.request, none, name, {}), 403, "permission_denied", false);
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("POST /agents/:id/calls - arguments off the schema are 400 invalid_arguments with details, and the executor is never called", async () => {
  const { name, caller } = await setup(undefined, SEARCH_PARAMETERS);
  const response = await callTool(g.request, caller, name, { limit: "ten" });
  const record = await expectRefused(g.request, caller.agent.id, response, 400, "invalid_arguments", true);
  expect(response.body.details).toEqual(
    expect.arrayContaining([
      { path: "query", message: "is required" },
      { path: "limit", message: expect.any(String) },
    ]),
  );
  expect(record.arguments).toEqual({ limit: "ten" });
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /agents/:id/calls - strict refuses unknown keys with their paths; defaults are applied before the executor sees the arguments", async () => {
  const { name, caller } = await setup({ strict: true }, SEARCH_PARAMETERS);
  const refused = await callTool(g.request, caller, name, { query: "x", verbose: true });
  await expectRefused(g.request, caller.agent.id, refused, 400, "invalid_arguments", true);
  expect(refused.body.details).toEqual([{ path: "verbose", message: "is not a parameter of this tool" }]);

  const ran = await callTool(g.request, caller, name, { query: "x" });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(g.executor.requestsFor(name).map((r) => r.body.arguments)).toEqual([{ query: "x", limit: 10 }]);
});

test("POST /agents/:id/calls - past perMinute the call is 429 rate_limited with retryAfterSeconds", async () => {
  const { name, caller } = await setup({ rateLimit: { perMinute: 2 } });
  await withinOneMinuteWindow();
  expect((await callTool(g.request, caller, name, { n: 1 })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { n: 2 })).status).toBe(200);
  const refused = await callTool(g.request, caller, name, { n: 3 });
  await expectRefused(g.request, caller.agent.id, refused, 429, "rate_limited", true);
  expect(refused.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(refused.body.retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(refused.body.limit).toBe("perMinute");
  expect(g.executor.requestsFor(name)).toHaveLength(2);
});

test("POST /agents/:id/calls - the rate limit counts per agent: another agent of the same role still gets its own budget", async () => {
  const { name, group, caller } = await setup({ rateLimit: { perMinute: 1 } });
  const second = await agentOn(g.request, [group]);
  await withinOneMinuteWindow();
  expect((await callTool(g.request, caller, name, { n: 1 })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { n: 2 })).status).toBe(429);
  expect((await callTool(g.request, second, name, { n: 1 })).status).toBe(200);
});

test("POST /agents/:id/calls - perHour limits too", async () => {
  const { name, caller } = await setup({ rateLimit: { perHour: 1 } });
  if ((Date.now() / 1000) % 3600 > 3590) await new Promise((done) => setTimeout(done, 11_000));
  expect((await callTool(g.request, caller, name, { n: 1 })).status).toBe(200);
  const refused = await callTool(g.request, caller, name, { n: 2 });
  await expectRefused(g.request, caller.agent.id, refused, 429, "rate_limited", true);
  expect(refused.body.limit).toBe("perHour");
  expect(refused.body.retryAfterSeconds).toBeGreaterThan(0);
  expect(refused.body.retryAfterSeconds).toBeLessThanOrEqual(3600);
});

test("POST /agents/:id/calls - the third identical call in a row is 429 doom_loop_detected; other arguments go through", async () => {
  const { name, caller } = await setup();
  expect((await callTool(g.request, caller, name, { path: "a", depth: 1 })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { depth: 1, path: "a" })).status).toBe(200);
  const refused = await callTool(g.request, caller, name, { path: "a", depth: 1 });
  await expectRefused(g.request, caller.agent.id, refused, 429, "doom_loop_detected", true);
  expect(refused.body.message).toMatch(/change the arguments/);
  expect(g.executor.requestsFor(name)).toHaveLength(2);
  expect((await callTool(g.request, caller, name, { path: "b" })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { path: "a", depth: 1 })).status).toBe(200);
});

test("POST /agents/:id/calls - with doomLoopThreshold 5 the fifth identical call is refused, not the third", async () => {
  const toolgate = await testToolgate({ doomLoopThreshold: 5 });
  const request = api(toolgate);
  const name = unique("tool");
  const group = await httpGroup(request, g.executor, [policyTool(name)]);
  const caller = await agentOn(request, [group]);
  for (let i = 1; i <= 4; i++) expect((await callTool(request, caller, name, { same: true })).status, `call ${i}`).toBe(200);
  await expectRefused(request, caller.agent.id, await callTool(request, caller, name, { same: true }), 429, "doom_loop_detected", true);
  expect(g.executor.requestsFor(name)).toHaveLength(4);
});

test("POST /agents/:id/calls - a group with no executor is refused 501 no_executor and recorded", async () => {
  const name = unique("tool");
  const group = unique("bare");
  const put = await g.request("PUT", `/groups/${group}`, { body: { description: "No executor.", tools: [policyTool(name)] } });
  expect(put.status).toBe(201);
  const caller = await agentOn(g.request, [group]);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, {}), 501, "no_executor", false);
});

test("POST /agents/:id/calls - only the agent itself may call: admin token and another agent's token are 403, no token 401", async () => {
  const { name, caller, group } = await setup();
  const other = await agentOn(g.request, [group]);
  const path = `/agents/${caller.agent.id}/calls`;
  const body = { tool: name, arguments: {} };
  expect((await g.request("POST", path, { body })).status).toBe(403);
  expect((await g.request("POST", path, { token: other.token, body })).status).toBe(403);
  const anonymous = await g.request("POST", path, { token: null, body });
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.error).toBe("unauthenticated");
  expect((await g.request("POST", path, { token: "not-a-token-at-all-0123456789", body })).status).toBe(401);
  expect(g.executor.requestsFor(name)).toHaveLength(0);
  const history = await g.request("GET", `/agents/${caller.agent.id}/calls`);
  expect(history.body.calls).toEqual([]);
});

test("POST /agents/:id/calls - a malformed call body is 400 and runs nothing", async () => {
  const { name, caller } = await setup();
  for (const body of [{}, { tool: "" }, { tool: name, arguments: [1] }, { tool: name, extra: 1 }]) {
    const response = await g.request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.error).toEqual(expect.any(String));
  }
  const invalidJson = await g.request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, rawBody: "{nope" });
  expect(invalidJson.status).toBe(400);
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /agents/:id/calls - tool names are exact: another case is unknown_tool, so a disabled tool cannot be reached that way", async () => {
  const { name, caller } = await setup();
  expect((await g.request("POST", `/tools/${name}/disable`)).status).toBe(200);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name.toUpperCase(), {}), 404, "unknown_tool", false);
  expect((await g.request("POST", `/tools/${name.toUpperCase()}/enable`)).status).toBe(404);
  expect((await callTool(g.request, caller, name, {})).body.error).toBe("tool_disabled");
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

// The order of the checks: the first failure wins.

test("guard order - an unknown tool with invalid arguments is unknown_tool", async () => {
  const { caller } = await setup();
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, unique("ghost"), { bad: "x" }), 404, "unknown_tool", false);
});

test("guard order - a tool outside the role, disabled and with invalid arguments is tool_not_available", async () => {
  const { name } = await setup({ strict: true }, SEARCH_PARAMETERS);
  await g.request("POST", `/tools/${name}/disable`);
  const other = await httpGroup(g.request, g.executor, [policyTool(unique("other"))]);
  const outsider = await agentOn(g.request, [other]);
  await expectRefused(g.request, outsider.agent.id, await callTool(g.request, outsider, name, { nope: 1 }), 403, "tool_not_available", false);
});

test("guard order - a disabled tool the agent may not use, called with invalid arguments, is tool_disabled", async () => {
  const { name, caller } = await setup({ minLevel: 10 }, SEARCH_PARAMETERS, { level: 1 });
  await g.request("POST", `/tools/${name}/disable`);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { limit: "x" }), 403, "tool_disabled", false);
});

test("guard order - a permission problem wins over invalid arguments", async () => {
  const { name, caller } = await setup({ minLevel: 10 }, SEARCH_PARAMETERS, { level: 1 });
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { limit: "x" }), 403, "permission_denied", false);
});

test("guard order - invalid arguments on a rate-limited tool are invalid_arguments and do not use the rate budget", async () => {
  const { name, caller } = await setup({ rateLimit: { perMinute: 1 } }, SEARCH_PARAMETERS);
  await withinOneMinuteWindow();
  for (let i = 0; i < 3; i++)
    await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { limit: i }), 400, "invalid_arguments", true);
  const ran = await callTool(g.request, caller, name, { query: "ok" });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { query: "again" }), 429, "rate_limited", true);
  const invalid = await callTool(g.request, caller, name, {});
  await expectRefused(g.request, caller.agent.id, invalid, 400, "invalid_arguments", true);
});

test("guard order - past the rate limit, identical calls are rate_limited rather than doom_loop_detected", async () => {
  const { name, caller } = await setup({ rateLimit: { perMinute: 2 } });
  await withinOneMinuteWindow();
  expect((await callTool(g.request, caller, name, { same: 1 })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { same: 1 })).status).toBe(200);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { same: 1 }), 429, "rate_limited", true);
});

test("guard order - the doom loop is checked before confirmation: the third identical dangerous call is refused, not queued", async () => {
  const { name, caller } = await setup({ dangerous: true });
  const first = await callTool(g.request, caller, name, { same: 1 });
  const second = await callTool(g.request, caller, name, { same: 1 });
  expect([first.status, second.status]).toEqual([202, 202]);
  await expectRefused(g.request, caller.agent.id, await callTool(g.request, caller, name, { same: 1 }), 429, "doom_loop_detected", true);
  expect((await readCall(g.request, caller.agent.id, first.body.callId)).status).toBe("awaiting_confirmation");
});

test("guard order - a refused call in between neither counts in nor breaks a run of identical calls", async () => {
  const { name, caller } = await setup(undefined, SEARCH_PARAMETERS);
  expect((await callTool(g.request, caller, name, { query: "q" })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { query: 5 })).status).toBe(400);
  expect((await callTool(g.request, caller, name, { query: "q" })).status).toBe(200);
  expect((await callTool(g.request, caller, name, { query: "q" })).status).toBe(429);
});
