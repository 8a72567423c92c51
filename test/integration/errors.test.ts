import { afterAll, beforeAll, expect, test, vi } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { groupsApp } from "@toolgate/functions/api/groups";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { api, ADMIN_TOKEN, testToolgate, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { agentWithGroups, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let agent: Awaited<ReturnType<typeof agentWithGroups>>;
let roleId: string;
let group: string;
const echo = unique("echo");
// The apps log every 500 with its stack; the assertions below name each one.
const quiet = vi.spyOn(console, "error").mockImplementation(() => {});

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor({ body: { content: "ok" } })]);
  request = api(toolgate);
  group = unique("errs");
  await putGroup(request, group, { description: "x", executor: { type: "http", url: executor.url }, tools: [tool(echo)] });
  agent = await agentWithGroups(request, [group]);
  roleId = (await createRole(request, { name: unique("target") })).id;
});

afterAll(async () => {
  quiet.mockRestore();
  await executor?.close();
});

type BodyRoute = { method: string; path: () => string; token: () => string | undefined };

/** Every route that takes a body, with the token that gets it past authentication. */
const bodyRoutes: BodyRoute[] = [
  { method: "PUT", path: () => `/groups/${unique("g")}`, token: () => undefined },
  { method: "POST", path: () => "/roles", token: () => undefined },
  { method: "PATCH", path: () => `/roles/${roleId}`, token: () => undefined },
  { method: "POST", path: () => "/agents", token: () => undefined },
  { method: "POST", path: () => `/agents/${agent.agent.id}/calls`, token: () => agent.token },
];

const label = (route: BodyRoute) => `${route.method} ${route.path().replace(/_[a-z0-9]+$/i, "_*")}`;

function expectErrorBody(response: ApiResponse, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
  expect(typeof response.body?.error, what).toBe("string");
  expect(typeof response.body?.message, what).toBe("string");
  expect(response.body.message.length, what).toBeGreaterThan(0);
  expect(JSON.stringify(response.body), what).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

test("body routes - malformed JSON is 400 invalid_json with a message", async () => {
  for (const route of bodyRoutes) {
    for (const rawBody of ["{", "{'name': 'x'}", '{"name": "x",}', "[1, 2", "nul", "{\"a\":1}}", "undefined"]) {
      const response = await request(route.method, route.path(), { token: route.token(), rawBody });
      expect(response.status, `${label(route)} ${rawBody}`).toBe(400);
      expect(response.body.error, `${label(route)} ${rawBody}`).toBe("invalid_json");
      expect(typeof response.body.message).toBe("string");
    }
  }
  expect((await request("GET", `/roles/${roleId}`)).body.version).toBe(1);
  expect((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls).toEqual([]);
});

test("unknown routes - 404 not_found with a message, from the router and from each function", async () => {
  for (const [method, path] of [
    ["GET", "/nope"],
    ["GET", "/groups/a/b/c"],
    ["POST", "/groups"],
    ["PUT", "/roles/x"],
  ] as const) {
    const response = await request(method, path);
    expect(response.status, `${method} ${path}`).toBe(404);
    expect(response.body.error, `${method} ${path}`).toBe("not_found");
  }
  for (const app of [groupsApp(() => toolgate), rolesApp(() => toolgate), executionApp(() => toolgate)]) {
    const response = await app.fetch(new Request("http://toolgate.test/definitely/not/here", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("not_found");
    expect(typeof body.message).toBe("string");
  }
});

test("body routes - wrong types are 400 with a stable code and per-field details", async () => {
  const cases: Array<[BodyRoute, unknown, string]> = [
    [bodyRoutes[0]!, { description: 5, tools: "none" }, "invalid_group_def"],
    [bodyRoutes[0]!, { description: "x", tools: [{ type: "function", function: { name: 5, description: "d", parameters: { type: "object" } } }] }, "invalid_group_def"],
    [bodyRoutes[0]!, { description: "x", tools: [tool("fine_tool")], executor: { type: "carrier-pigeon" } }, "invalid_group_def"],
    [bodyRoutes[1]!, { name: ["x"] }, "invalid_role"],
    [bodyRoutes[1]!, { name: "x", toolGroups: { workspace: true } }, "invalid_role"],
    [bodyRoutes[1]!, { name: "x", llmServiceId: 3 }, "invalid_role"],
    [bodyRoutes[2]!, { toolGroups: "workspace" }, "invalid_role"],
    [bodyRoutes[2]!, { version: "1" }, "invalid_role"],
    [bodyRoutes[2]!, { name: null }, "invalid_role"],
    [bodyRoutes[3]!, { roleId: ["root"] }, "invalid_agent"],
    [bodyRoutes[3]!, { roleId: "root", level: "3" }, "invalid_agent"],
    [bodyRoutes[4]!, { tool: 5 }, "invalid_request"],
    [bodyRoutes[4]!, { tool: echo, arguments: "a=1" }, "invalid_request"],
    [bodyRoutes[4]!, { tool: echo, arguments: [1, 2] }, "invalid_request"],
  ];
  for (const [route, body, code] of cases) {
    const response = await request(route.method, route.path(), { token: route.token(), body });
    expect(response.status, `${label(route)} ${JSON.stringify(body)}`).toBe(400);
    expect(response.body.error, `${label(route)} ${JSON.stringify(body)}`).toBe(code);
    expect(Array.isArray(response.body.details), JSON.stringify(response.body)).toBe(true);
    expect(response.body.details.length).toBeGreaterThan(0);
  }
});

test("body routes - a sweep of bad bodies never gives a 500, always { error, message }", async () => {
  const deep = (levels: number): unknown => (levels === 0 ? "bottom" : { a: deep(levels - 1) });
  const bodies: Array<{ body?: unknown; rawBody?: string }> = [
    { rawBody: "" },
    { rawBody: "   " },
    { body: null },
    { body: true },
    { body: 0 },
    { body: -1.5e308 },
    { body: "a string" },
    { body: [] },
    { body: [{}] },
    { body: {} },
    { body: { unexpected: 1 } },
    { body: { name: null, roleId: null, tool: null, description: null, tools: null } },
    { body: { name: {}, roleId: {}, tool: {}, description: {}, tools: {} } },
    { body: { name: "", roleId: "", tool: "", description: "", tools: [] } },
    { body: { name: "x".repeat(100_000), roleId: "x".repeat(100_000), tool: "x".repeat(100_000), description: "x".repeat(100_000), tools: [] } },
    { body: { tools: [null, 1, "x", [], {}] } },
    { body: { tools: [{ type: "function", function: null }] } },
    { body: { tools: [{ type: "function", function: { name: "n", description: "d", parameters: { type: "object", properties: 5 } } }], description: "x" } },
    { body: { toolGroups: [null], rolePrompt: null, version: -1 } },
    { body: { version: 1.5 } },
    { body: { version: 1e300 } },
    { body: { level: 1e300, roleId: "root" } },
    { body: { tool: echo, arguments: null } },
    { body: { tool: echo, arguments: { x: 1 }, extra: true } },
    { rawBody: '{"__proto__": {"polluted": true}, "name": "proto"}' },
    { rawBody: '{"constructor": {"prototype": {"polluted": true}}}' },
    { rawBody: '{"name": "\\ud800", "tool": "\\ud800", "roleId": "\\ud800", "description": "\\ud800"}' },
    { rawBody: '{"name": "a\\u0000b", "tool": "a\\u0000b", "roleId": "a\\u0000b"}' },
    { body: deep(200) },
    { rawBody: `${"[".repeat(5_000)}${"]".repeat(5_000)}` },
  ];
  const failures: string[] = [];
  for (const route of bodyRoutes) {
    for (const input of bodies) {
      // An empty patch is a valid (if pointless) partial update.
      if (route.method === "PATCH" && input.body !== undefined && JSON.stringify(input.body) === "{}") continue;
      const response = await request(route.method, route.path(), { token: route.token(), ...input });
      const problem = errorBodyProblem(response);
      if (problem) failures.push(`${label(route)} ${(input.rawBody ?? JSON.stringify(input.body)).slice(0, 60)} -> ${problem}`);
    }
  }
  expect(failures).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((await request("GET", `/roles/${roleId}`)).body.version).toBe(1);
});

test("POST /agents/:id/calls - deeply nested arguments are not a 500", async () => {
  const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { leaf: 1 } : { a: deep(levels - 1) });
  const outcomes: string[] = [];
  for (const levels of [40, 500]) {
    const response = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: echo, arguments: deep(levels) } });
    outcomes.push(`${levels} levels -> ${response.status} ${response.body?.error ?? response.body?.status}`);
  }
  expect(outcomes.filter((outcome) => / 5\d\d /.test(outcome))).toEqual([]);
});

test("PUT /groups/:id - a deeply nested parameters schema is not a 500", async () => {
  const nested = (levels: number): Record<string, unknown> =>
    levels === 0 ? { type: "string" } : { type: "object", properties: { child: nested(levels - 1) } };
  const name = unique("nested_tool");
  const response = await request("PUT", `/groups/${unique("nested")}`, { body: { description: "x", tools: [tool(name, "Nested.", nested(20))] } });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
  expectErrorOrCreated(response);
});

test("PUT /groups/:id - a group too large to store is refused with a 4xx, not a 500", async () => {
  const tools = Array.from({ length: 150 }, (_, i) => tool(`${unique("bulk")}_${i}`, "d".repeat(4_000)));
  const response = await request("PUT", `/groups/${unique("bulky")}`, { body: { description: "x", tools } });
  expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBeLessThan(500);
  expectErrorOrCreated(response);
});

test("body routes - a body over the size limit is 413 payload_too_large", async () => {
  const huge = JSON.stringify({ name: "x", description: "y".repeat(1_200_000) });
  for (const route of bodyRoutes) {
    const response = await request(route.method, route.path(), { token: route.token(), rawBody: huge });
    expect(response.status, label(route)).toBe(413);
    expect(response.body.error).toBe("payload_too_large");
  }
});

test("GET /agents/:id/calls - a bad query is 400 with a stable code", async () => {
  for (const query of ["limit=0", "limit=-1", "limit=abc", "limit=1.5", "limit=100000", "unknown=1", "cursor="]) {
    const response = await request("GET", `/agents/${agent.agent.id}/calls?${query}`);
    expect(response.status, query).toBe(400);
    expect(typeof response.body.error, query).toBe("string");
    expect(typeof response.body.message, query).toBe("string");
  }
});

test("path parameters - overlong or odd ids are a 4xx, never a 500", async () => {
  const long = "x".repeat(3_000);
  const odd = encodeURIComponent("weird id/../\u00e9\u0000");
  const failures: string[] = [];
  for (const id of [long, odd]) {
    for (const [method, path, body, token] of [
      ["GET", `/groups/${id}`],
      ["PUT", `/groups/${id}`, { description: "x", tools: [tool(unique("t"))] }],
      ["DELETE", `/groups/${id}`],
      ["GET", `/tools/${id}`],
      ["GET", `/modules/${id}`],
      ["GET", `/roles/${id}`],
      ["GET", `/roles/by-name/${id}`],
      ["PATCH", `/roles/${id}`, { rolePrompt: "x" }],
      ["GET", `/agents/${id}`],
      ["DELETE", `/agents/${id}`],
      ["POST", `/agents/${id}/token`],
      ["GET", `/agents/${id}/tools`],
      ["GET", `/agents/${id}/calls`],
      ["GET", `/agents/${agent.agent.id}/calls/${id}`, undefined, agent.token],
    ] as Array<[string, string, unknown?, string?]>) {
      const response = await request(method, path, { body, token });
      const problem = errorBodyProblem(response);
      if (problem) failures.push(`${method} ${path.replace(long, "<3000 x>")} -> ${problem}`);
    }
  }
  expect(failures).toEqual([]);
});

/** What is wrong with a response to bad input, or undefined when it is a proper 4xx { error, message }. */
function errorBodyProblem(response: ApiResponse): string | undefined {
  const body = response.body as { error?: unknown; message?: unknown } | undefined;
  if (response.status < 400 || response.status >= 500) return `${response.status} ${JSON.stringify(body)?.slice(0, 120)}`;
  if (typeof body?.error !== "string" || typeof body.message !== "string" || body.message === "") return `${response.status} without { error, message }`;
  if (/\n\s+at |node_modules|\.ts:\d+/.test(JSON.stringify(body))) return `${response.status} leaks a stack trace`;
  return undefined;
}

function expectErrorOrCreated(response: ApiResponse) {
  if (response.status === 201) return;
  expectErrorBody(response, "refusal");
}
