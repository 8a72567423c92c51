import { Validator } from "@seriousme/openapi-schema-validator";
import { afterEach, beforeAll, expect, test, vi } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { groupsApp } from "@toolgate/functions/api/groups";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { logger } from "@toolgate/functions/log";
import * as A from "@toolgate/functions/openapi/answers";
import { apiDocument } from "@toolgate/functions/openapi/build";
import { undocumentedRoutes, unservedRoutes } from "@toolgate/functions/openapi/document";
import { API } from "@toolgate/functions/routes";
import { ADMIN_TOKEN, api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, moduleEvent, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let document: any;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  document = (await request("GET", "/openapi.json", { token: null })).body;
});

const declaredRoutes = Object.values(API).flatMap((resources) => Object.values(resources).flatMap((routes) => Object.values(routes as Record<string, string>)));
const operationOf = (route: string) => {
  const [method, path] = route.split(" ") as [string, string];
  return document.paths[path.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\/\*$/, "/{page}")]?.[method.toLowerCase()];
};
const documentedCodes = (route: string, status: number) => operationOf(route).responses[status]?.content["application/json"].schema.properties.error.enum as string[];

test("GET /openapi.json - is a valid OpenAPI 3.1 document, served without a token", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");
});

test("GET /openapi.json - every route declared in routes.ts is documented, served by its function, and in the document", () => {
  expect(undocumentedRoutes()).toEqual([]);
  const unused = () => toolgate;
  expect(unservedRoutes({ groups: groupsApp(unused), roles: rolesApp(unused), execution: executionApp(unused) })).toEqual([]);
  for (const route of declaredRoutes) {
    const operation = operationOf(route);
    expect(operation, route).toBeDefined();
    expect(operation["x-undocumented"], route).toBeUndefined();
    expect(Object.keys(operation.responses).some((status) => Number(status) < 300) || route.endsWith(" /mcp"), `${route} documents its answer`).toBe(true);
  }
  const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods as object).map((method) => `${method} ${path}`));
  expect(documented).toHaveLength(declaredRoutes.length);
});

test("GET /openapi.json - the document served is the one the apps describe now (built with the service, not stale)", async () => {
  expect(document).toEqual(JSON.parse(JSON.stringify(apiDocument())));
});

test("GET /openapi.json - bodies and queries are the schemas the edge validates with, and auth is the route's own", () => {
  const create = operationOf(API.execution.agents.create);
  expect(create.requestBody.content["application/json"].schema).toMatchObject({ required: ["roleId"], properties: { roleId: { type: "string" }, level: { type: "integer" } } });
  expect(create.security).toEqual([{ adminToken: [] }]);
  expect(documentedCodes(API.execution.agents.create, 400)).toEqual(expect.arrayContaining(["invalid_agent", "invalid_json", "role_not_found"]));

  const history = operationOf(API.execution.calls.history);
  expect(history.security).toEqual([{ adminToken: [] }, { agentToken: [] }]);
  expect(history.parameters.map((parameter: { name: string; in: string }) => `${parameter.in}:${parameter.name}`)).toEqual(expect.arrayContaining(["path:id", "query:limit", "query:cursor", "query:status", "query:tool"]));
  expect(documentedCodes(API.execution.calls.history, 400)).toContain("invalid_query");

  expect(operationOf(API.execution.calls.call).security).toEqual([{ agentToken: [] }]);
  expect(operationOf(API.groups.health.check).security).toEqual([]);
  expect(documentedCodes(API.roles.roles.remove, 409)).toEqual(expect.arrayContaining(["role_in_use", "root_role_fixed"]));
});

test("GET /openapi.json - a real refusal's code is among those documented for its route and status", async () => {
  const refusals: Array<[string, string, Parameters<Api>[2]?]> = [
    [API.roles.roles.get, "/roles/rol_missing"],
    [API.groups.groups.get, "/groups/no_such_group"],
    [API.groups.tools.get, "/tools/no_such_tool"],
    [API.execution.agents.create, "/agents", { body: { roleId: 7 } }],
    [API.execution.agents.create, "/agents", { rawBody: "{" }],
    [API.roles.roles.list, "/roles", { token: null }],
    [API.execution.calls.history, "/agents/agt_x/calls?status=nonsense"],
  ];
  for (const [route, path, options] of refusals) {
    const response = await request(route.split(" ")[0]!, path, options);
    expect(documentedCodes(route, response.status), `${route} ${response.status}`).toContain(response.body.error);
  }
});

test("answers - real answers parse with the schemas the document is built from", async () => {
  const role = await createRole(request, { name: unique("Docs"), toolGroups: ["workspace"] });
  const created = await request("POST", "/agents", { body: { roleId: role.id } });
  A.AgentWithToken.parse(created.body);
  A.RoleView.parse((await request("GET", `/roles/${role.id}`)).body);
  A.RoleList.parse((await request("GET", "/roles")).body);
  A.GroupList.parse((await request("GET", "/groups")).body);
  A.GroupView.parse((await request("GET", "/groups/workspace")).body);
  A.ToolList.parse((await request("GET", "/tools")).body);
  A.ToolStats.parse((await request("GET", "/tools/stats")).body);
  A.ToolView.parse((await request("GET", "/tools/read_file")).body);
  A.AgentTools.parse((await request("GET", `/agents/${created.body.agent.id}/tools`)).body);
  A.CallPage.parse((await request("GET", `/agents/${created.body.agent.id}/calls`)).body);
  A.Health.parse((await request("GET", "/health", { token: null })).body);
});

test("GET /docs - a page of every route, without a token, with a policy that allows no script", async () => {
  const response = await rolesApp(() => toolgate).request("/docs");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/html");
  const csp = response.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain("script-src");
  const page = await response.text();
  expect(page).not.toMatch(/<script|https?:\/\/(?!toolgate)/);
  for (const route of declaredRoutes) expect(page, route).toContain(`<code>${route.split(" ")[1]!.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\/\*$/, "/{page}")}</code>`);
  expect(page).toContain('href="openapi.json"');
});

const captured: string[] = [];
function captureLogs() {
  captured.length = 0;
  logger.setLogLevel("INFO");
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
      captured.push(String(chunk));
      return true;
    });
}
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel("WARN");
});
const lines = () => captured.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));

test("logs - one JSON line per request: id, route, status, duration, principal and the call's id; no token, secret or argument", async () => {
  const group = unique("logged");
  await putGroup(request, group, { description: "Logged tools.", tools: [tool("echo_secret")], executor: { type: "client" } });
  const role = await createRole(request, { name: unique("Logged"), toolGroups: [group] });
  const { agent, token } = await createAgent(request, role.id);
  const secret = `s3cr3t-${unique("value")}`;

  captureLogs();
  const call = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "echo_secret", arguments: { password: secret, note: secret } } });
  await request("GET", `/agents/${agent.id}`);
  await request("GET", "/roles", { token: null });
  const logged = lines();

  expect(call.status).toBe(202);
  expect(logged).toHaveLength(3);
  expect(logged[0]).toMatchObject({
    level: "INFO",
    message: "request",
    service: "toolgate",
    requestId: expect.any(String),
    method: "POST",
    route: "POST /agents/:id/calls",
    status: 202,
    durationMs: expect.any(Number),
    principal: "agent",
    callId: call.body.callId,
  });
  expect(logged[1]).toMatchObject({ route: "GET /agents/:id", status: 200, principal: "admin" });
  expect(logged[1].callId).toBeUndefined();
  expect(logged[2]).toMatchObject({ route: "GET /roles", status: 401, principal: "none" });
  const text = captured.join("");
  for (const hidden of [secret, token, ADMIN_TOKEN, agent.id]) expect(text).not.toContain(hidden);
});

test("logs - one line per module event handled, with its outcome and none of its detail", async () => {
  const module = unique("logmod");
  const description = `Described ${unique("privately")}`;
  captureLogs();
  await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module, version: 1, description, tools: [tool(unique("t"))], executor: { type: "http", url: "http://127.0.0.1:9/x" } }, "evt-logged"));
  const [line] = lines();
  expect(line).toMatchObject({ level: "INFO", message: "event", eventId: "evt-logged", source: "toolgate.modules", detailType: "module.loaded", outcome: "loaded", module, durationMs: expect.any(Number) });
  expect(captured.join("")).not.toContain(description);
});
