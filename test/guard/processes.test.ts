import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentOn, callTool, guarded, httpGroup, policyTool, unique, withinOneMinuteWindow } from "./helpers";
import type { AgentHandle, Guarded } from "./helpers";

// Two "Lambda instances" on one table: A takes the admin's changes, B serves the agent's calls.
let g: Guarded;
let A: Api;
let B: Api;
let instanceB: Toolgate;

beforeAll(async () => {
  g = await guarded();
  A = g.request;
  instanceB = await testToolgate({ table: g.toolgate.db.table });
  B = api(instanceB);
});

afterAll(async () => {
  await g?.close();
});

/** A fresh tool in a fresh group, an agent on it, and both processes warmed up by a first call each. */
async function warmed(policy?: Record<string, unknown>) {
  const name = unique("tool");
  const group = await httpGroup(A, g.executor, [policyTool(name, policy)]);
  const caller = await agentOn(A, [group]);
  expect((await callTool(A, caller, name, { warm: "A" })).status).toBe(200);
  expect((await callTool(B, caller, name, { warm: "B" })).status).toBe(200);
  return { name, group, caller };
}

let n = 0;
const next = () => ({ n: n++ });

test("POST /tools/:name/disable - the very next call through another process is tool_disabled, and enable is seen as fast", async () => {
  const { name, caller } = await warmed();
  expect((await A("POST", `/tools/${name}/disable`)).status).toBe(200);
  const refused = await callTool(B, caller, name, next());
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  expect(refused.body.error).toBe("tool_disabled");
  expect((await A("POST", `/tools/${name}/enable`)).status).toBe(200);
  expect((await callTool(B, caller, name, next())).status).toBe(200);
});

test("A call admitted on a plan another process has since changed is refused before anything reaches its executor", async () => {
  const { name, caller } = await warmed();
  expect((await A("POST", `/tools/${name}/disable`)).status).toBe(200);
  const refusedArguments = next();
  expect((await callTool(B, caller, name, refusedArguments)).body.error).toBe("tool_disabled");
  expect((await A("POST", `/tools/${name}/enable`)).status).toBe(200);
  const ranArguments = next();
  expect((await callTool(B, caller, name, ranArguments)).status).toBe(200);
  const received = g.executor.requestsFor(name).map((request) => request.body.arguments);
  expect(received).toContainEqual(ranArguments);
  expect(received).not.toContainEqual(refusedArguments);
});

test("PUT /tools/:name/policy - an override through one process applies to the very next call through another", async () => {
  const { name, caller } = await warmed();
  expect((await A("PUT", `/tools/${name}/policy`, { body: { requireConfirmation: true } })).status).toBe(200);
  const queued = await callTool(B, caller, name, next());
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  expect(queued.body.status).toBe("awaiting_confirmation");

  expect((await A("PUT", `/tools/${name}/policy`, { body: { minLevel: 5 } })).status).toBe(200);
  const denied = await callTool(B, caller, name, next());
  expect(denied.status, JSON.stringify(denied.body)).toBe(403);
  expect(denied.body.error).toBe("permission_denied");

  expect((await A("PUT", `/tools/${name}/policy`, { body: {} })).status).toBe(200);
  expect((await callTool(B, caller, name, next())).status).toBe(200);
});

test("PUT /tools/:name/policy - a rate limit set through one process binds the next call through another", async () => {
  const { name, caller } = await warmed();
  await withinOneMinuteWindow();
  expect((await A("PUT", `/tools/${name}/policy`, { body: { rateLimit: { perMinute: 1 } } })).status).toBe(200);
  expect((await callTool(B, caller, name, next())).status).toBe(200);
  const limited = await callTool(A, caller, name, next());
  expect(limited.status, JSON.stringify(limited.body)).toBe(429);
  expect((await callTool(B, caller, name, next())).status).toBe(429);
});

test("PUT /tools/:name/policy - an invalid policy is 400 and changes nothing", async () => {
  const { name, caller } = await warmed();
  for (const body of [{ rateLimit: { perMinute: 0 } }, { dangerous: "yes" }, { unknownField: 1 }, [1]]) {
    const response = await A("PUT", `/tools/${name}/policy`, { body });
    expect(response.status, JSON.stringify(body)).toBe(400);
  }
  expect((await A("PUT", `/tools/${unique("ghost")}/policy`, { body: {} })).status).toBe(404);
  expect((await callTool(B, caller, name, next())).status).toBe(200);
});

test("GET /tools/:name - shows the definition, the effective policy and the override", async () => {
  const { name } = await warmed({ rateLimit: { perMinute: 9 }, tags: ["x"] });
  await A("PUT", `/tools/${name}/policy`, { body: { dangerous: true } });
  await A("POST", `/tools/${name}/disable`);
  const shown = await B("GET", `/tools/${name}`);
  expect(shown.status, JSON.stringify(shown.body)).toBe(200);
  expect(shown.body).toMatchObject({
    name,
    group: expect.any(String),
    policy: { rateLimit: { perMinute: 9 }, tags: ["x"], dangerous: true, disabled: true },
    override: { policy: { dangerous: true }, disabled: true },
    definition: { type: "function", function: { name }, "x-toolgate": { rateLimit: { perMinute: 9 }, tags: ["x"] } },
  });
});

test("PATCH /roles/:id - removing a group through one process makes the next call through another tool_not_available", async () => {
  const { name, caller } = await warmed();
  const kept = await httpGroup(A, g.executor, [policyTool(unique("kept"))]);
  const patched = await A("PATCH", `/roles/${caller.role.id}`, { body: { toolGroups: [kept] } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const refused = await callTool(B, caller, name, next());
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  expect(refused.body).toMatchObject({ error: "tool_not_available", toolName: name });
  const tools = await B("GET", `/agents/${caller.agent.id}/tools`, { token: caller.token });
  expect(tools.body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain(name);
});

test("PATCH /roles/:id - adding a group through one process makes its tools callable through another at once", async () => {
  const { caller } = await warmed();
  const added = unique("added");
  const group = await httpGroup(A, g.executor, [policyTool(added)]);
  expect((await callTool(B, caller, added, next())).status).toBe(403);
  const current = await A("GET", `/roles/${caller.role.id}`);
  expect((await A("PATCH", `/roles/${caller.role.id}`, { body: { toolGroups: [...current.body.toolGroups, group] } })).status).toBe(200);
  expect((await callTool(B, caller, added, next())).status).toBe(200);
});

test("DELETE /groups/:id - unregistering a group through one process makes its tools unknown to another at once", async () => {
  const { name, group, caller } = await warmed();
  expect((await A("DELETE", `/groups/${group}`)).status).toBe(204);
  const refused = await callTool(B, caller, name, next());
  expect(refused.status, JSON.stringify(refused.body)).toBe(404);
  expect(refused.body.error).toBe("unknown_tool");
});

test("DELETE /agents/:id - after termination through one process, the old token is refused by another on the next call", async () => {
  const { name, caller } = await warmed();
  expect((await A("DELETE", `/agents/${caller.agent.id}`)).status).toBe(200);
  const refused = await callTool(B, caller, name, next());
  expect([401, 403], JSON.stringify(refused.body)).toContain(refused.status);
  expect(g.executor.requestsFor(name)).toHaveLength(2);
  expect([401, 403]).toContain((await B("GET", `/agents/${caller.agent.id}/tools`, { token: caller.token })).status);
});

test("POST /agents/:id/token - after rotation through one process, the old token is 401 in another and the new one works", async () => {
  const { name, caller } = await warmed();
  const rotated = await A("POST", `/agents/${caller.agent.id}/token`);
  expect(rotated.status).toBe(201);
  const stale = await callTool(B, caller, name, next());
  expect(stale.status, JSON.stringify(stale.body)).toBe(401);
  expect(stale.body.error).toBe("unauthenticated");
  const fresh: AgentHandle = { agent: caller.agent, token: rotated.body.token };
  expect((await callTool(B, fresh, name, next())).status).toBe(200);
  expect((await callTool(A, caller, name, next())).status).toBe(401);
  expect(g.executor.requestsFor(name)).toHaveLength(3);
});

test("GET /agents/:id/tools - x-toolgate never reaches the agent, through either process", async () => {
  const name = unique("tool");
  const roleName = unique("role");
  const group = await httpGroup(A, g.executor, [policyTool(name, { dangerous: true, rateLimit: { perMinute: 3 }, allowedRoles: [roleName], tags: ["secret"] })]);
  const caller = await agentOn(A, [group], {}, roleName);
  await A("PUT", `/tools/${name}/policy`, { body: { strict: true } });
  for (const request of [A, B]) {
    const response = await request("GET", `/agents/${caller.agent.id}/tools`, { token: caller.token });
    expect(response.status).toBe(200);
    expect(response.body.tools.length).toBeGreaterThan(0);
    expect(JSON.stringify(response.body)).not.toContain("x-toolgate");
    for (const definition of response.body.tools) expect(Object.keys(definition).sort()).toEqual(["function", "type"]);
  }
  const all = await agentOn(A, null);
  const everything = await B("GET", `/agents/${all.agent.id}/tools`, { token: all.token });
  expect(everything.body.tools.length).toBeGreaterThan(10);
  expect(JSON.stringify(everything.body)).not.toContain("x-toolgate");
});
