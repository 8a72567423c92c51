import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, BUILTIN_TOOLS, createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

const toolNames = (body: { tools: Array<{ function: { name: string } }> }) => body.tools.map((t) => t.function.name);

/** Every route an agent may use on itself, with a body where one is needed. */
const agentRoutes = (id: string) =>
  [
    ["GET", `/agents/${id}`],
    ["GET", `/agents/${id}/tools`],
    ["GET", `/agents/${id}/calls`],
    ["GET", `/agents/${id}/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV`],
    ["POST", `/agents/${id}/calls`, { tool: "read_file", arguments: {} }],
  ] as const;

test("POST /agents - 201 with the agent and a token", async () => {
  const role = await createRole(request, { name: unique("worker"), toolGroups: ["workspace"] });
  const response = await request("POST", "/agents", { body: { roleId: role.id, name: "worker-1", department: "eng", level: 3 } });
  expect(response.status).toBe(201);
  expect(response.body.agent).toMatchObject({ id: expect.stringMatching(/^agt_/), roleId: role.id, name: "worker-1", status: "active", department: "eng", level: 3 });
  expect(typeof response.body.token).toBe("string");
  expect(response.body.token.length).toBeGreaterThan(20);
  expect(response.body.agent.tokenVersion).toBeUndefined();
  const read = await request("GET", `/agents/${response.body.agent.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(response.body.agent);
});

test("POST /agents - an unknown role is 400 role_not_found and no agent is made", async () => {
  const response = await request("POST", "/agents", { body: { roleId: unique("rol") } });
  expect(response.status).toBe(400);
  expect(response.body.error).toBe("role_not_found");
  expect(typeof response.body.message).toBe("string");
});

test("POST /agents - an invalid body is 400 invalid_agent", async () => {
  for (const body of [{}, { roleId: 42 }, { roleId: "" }, { roleId: "root", level: "high" }, { roleId: "root", level: 1.5 }, { roleId: "root", extra: 1 }, { roleId: "root", name: "" }]) {
    const response = await request("POST", "/agents", { body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.error, JSON.stringify(body)).toBe("invalid_agent");
  }
});

test("GET /agents/:id - an agent reads itself with its own token; another agent's token is 403", async () => {
  const a = await agentWithGroups(request, ["workspace"]);
  const b = await agentWithGroups(request, ["workspace"]);
  const self = await request("GET", `/agents/${a.agent.id}`, { token: a.token });
  expect(self.status).toBe(200);
  expect(self.body).toMatchObject({ id: a.agent.id, roleId: a.role.id, status: "active" });
  const other = await request("GET", `/agents/${a.agent.id}`, { token: b.token });
  expect(other.status).toBe(403);
  expect(other.body.error).toBe("forbidden");
  const otherTools = await request("GET", `/agents/${a.agent.id}/tools`, { token: b.token });
  expect(otherTools.status).toBe(403);
});

test("GET /agents/:id - an unknown agent is 404 for the admin", async () => {
  const response = await request("GET", `/agents/${unique("agt")}`);
  expect(response.status).toBe(404);
  expect(typeof response.body.error).toBe("string");
});

test("DELETE /agents/:id - terminates the agent and its token stops working on every agent route", async () => {
  const { agent, token } = await agentWithGroups(request, ["workspace"]);
  expect((await request("GET", `/agents/${agent.id}`, { token })).status).toBe(200);
  const response = await request("DELETE", `/agents/${agent.id}`);
  expect(response.status).toBeGreaterThanOrEqual(200);
  expect(response.status).toBeLessThan(300);
  const read = await request("GET", `/agents/${agent.id}`);
  expect(read.body.status).toBe("terminated");
  for (const [method, path, body] of agentRoutes(agent.id)) {
    const attempt = await request(method, path, { token, body });
    expect([401, 403], `${method} ${path}`).toContain(attempt.status);
    expect(typeof attempt.body.error).toBe("string");
  }
});

test("DELETE /agents/:id - an unknown agent is 404", async () => {
  const response = await request("DELETE", `/agents/${unique("agt")}`);
  expect(response.status).toBe(404);
});

test("POST /agents/:id/token - gives a fresh token and the old one stops working", async () => {
  const { agent, token: oldToken } = await agentWithGroups(request, ["workspace"]);
  const response = await request("POST", `/agents/${agent.id}/token`);
  expect(response.status).toBeGreaterThanOrEqual(200);
  expect(response.status).toBeLessThan(300);
  const fresh = response.body.token as string;
  expect(typeof fresh).toBe("string");
  expect(fresh).not.toBe(oldToken);
  expect((await request("GET", `/agents/${agent.id}`, { token: fresh })).status).toBe(200);
  expect((await request("GET", `/agents/${agent.id}/tools`, { token: fresh })).status).toBe(200);
  for (const [method, path, body] of agentRoutes(agent.id)) {
    const attempt = await request(method, path, { token: oldToken, body });
    expect([401, 403], `${method} ${path}`).toContain(attempt.status);
  }
});

test("GET /agents/root - the root agent exists from start-up with the root role", async () => {
  const response = await request("GET", "/agents/root");
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ id: "root", roleId: "root", status: "active" });
});

test("GET /agents/root/tools - root sees exactly org_management's tools", async () => {
  // A group registered later does not widen root's view.
  await putGroup(request, unique("extra"), { description: "x", tools: [tool(unique("extra_tool"))] });
  const response = await request("GET", "/agents/root/tools");
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ agentId: "root", roleId: "root", toolGroups: ["org_management"] });
  expect(toolNames(response.body).sort()).toEqual([...BUILTIN_TOOLS.org_management!].sort());
});

test("GET /agents/:id/tools - exactly the role's groups' tools, once each, in OpenAI function format without x-toolgate", async () => {
  const custom = unique("custom");
  const names = [unique("alpha"), unique("beta")];
  await putGroup(request, custom, {
    description: "custom",
    tools: [
      { ...tool(names[0]!, "Alpha.", { type: "object", properties: { q: { type: "string" } } }), "x-toolgate": { timeoutMs: 500, dangerous: true, tags: ["x"] } },
      tool(names[1]!),
    ],
  });
  const { agent, role, token } = await agentWithGroups(request, ["workspace", custom, "workspace"]);
  for (const viewer of [undefined, token]) {
    const response = await request("GET", `/agents/${agent.id}/tools`, { token: viewer });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ agentId: agent.id, roleId: role.id });
    expect([...response.body.toolGroups].sort()).toEqual(["workspace", custom].sort());
    const listed = toolNames(response.body);
    expect([...listed].sort()).toEqual([...BUILTIN_TOOLS.workspace!, ...names].sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const definition of response.body.tools) {
      expect(Object.keys(definition).sort()).toEqual(["function", "type"]);
      expect(definition.type).toBe("function");
      expect(Object.keys(definition.function).sort()).toEqual(["description", "name", "parameters"]);
      expect(JSON.stringify(definition)).not.toContain("x-toolgate");
    }
    expect(response.body.tools.find((t: { function: { name: string } }) => t.function.name === names[0])).toEqual(
      tool(names[0]!, "Alpha.", { type: "object", properties: { q: { type: "string" } } }),
    );
  }
});

test("GET /agents/:id/tools - a role with every group sees every tool once; a removed group drops out", async () => {
  const gone = unique("gone");
  const goneTool = unique("gone_tool");
  await putGroup(request, gone, { description: "x", tools: [tool(goneTool)] });
  const { agent } = await agentWithGroups(request, []);
  const groups = (await request("GET", "/groups")).body.groups as Array<{ id: string; tools: string[] }>;
  const response = await request("GET", `/agents/${agent.id}/tools`);
  const listed = toolNames(response.body);
  expect([...listed].sort()).toEqual(groups.flatMap((group) => group.tools).sort());
  expect([...response.body.toolGroups].sort()).toEqual(groups.map((group) => group.id).sort());

  expect((await request("DELETE", `/groups/${gone}`)).status).toBe(204);
  const after = await request("GET", `/agents/${agent.id}/tools`);
  expect(toolNames(after.body)).not.toContain(goneTool);
  expect(after.body.toolGroups).not.toContain(gone);
});

test("GET /agents/:id/tools - follows a change of the agent's role", async () => {
  const { agent, role } = await agentWithGroups(request, ["console"]);
  expect(toolNames((await request("GET", `/agents/${agent.id}/tools`)).body)).toEqual(BUILTIN_TOOLS.console);
  expect((await request("PATCH", `/roles/${role.id}`, { body: { toolGroups: ["network"] } })).status).toBe(200);
  expect(toolNames((await request("GET", `/agents/${agent.id}/tools`)).body)).toEqual(BUILTIN_TOOLS.network);
});

test("POST /agents - agents of the root role can be made and see root's tools", async () => {
  const { agent } = await createAgent(request, "root");
  const response = await request("GET", `/agents/${agent.id}/tools`);
  expect(toolNames(response.body).sort()).toEqual([...BUILTIN_TOOLS.org_management!].sort());
});
