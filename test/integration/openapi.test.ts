import { QUESTION_ERRORS } from "@toolgate/core/question";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, expect, test } from "vitest";
import { ACCESS_ERRORS } from "@toolgate/core/access";
import { AGENT_ERRORS } from "@toolgate/core/agent";
import { ANSWER_TOKEN_ERRORS } from "@toolgate/core/answer-token";
import { CALL_ERRORS } from "@toolgate/core/call";
import { COMMON_ERRORS } from "@toolgate/core/error";
import type { ErrorCatalog } from "@toolgate/core/error";
import { EXECUTOR_ERRORS } from "@toolgate/core/executor";
import { GROUP_ERRORS } from "@toolgate/core/group";
import { GUARD_ERRORS } from "@toolgate/core/guard";
import { MESSAGE_ERRORS } from "@toolgate/core/message";
import { MODULE_ERRORS } from "@toolgate/core/module";
import { POLICY_ERRORS } from "@toolgate/core/policy";
import { ROLE_ERRORS } from "@toolgate/core/role";
import type { Toolgate } from "@toolgate/core/toolgate";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { groupsApp } from "@toolgate/functions/api/groups";
import * as A from "@toolgate/functions/openapi/answers";
import { apiDocument } from "@toolgate/functions/openapi/build";
import { undocumentedRoutes, unservedRoutes } from "@toolgate/functions/openapi/document";
import { API } from "@toolgate/functions/routes";
import { ARTIFACT_ERRORS } from "../../packages/core/src/artifact/index";
import { HTTP_ERRORS } from "../../packages/functions/src/http/errors";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createRole, unique } from "./helpers";

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

/** Every area's catalog of error codes (code → status), from which its errors are made and OpenAPI's lists are built. */
const CATALOGS: Record<string, ErrorCatalog> = {
  access: ACCESS_ERRORS,
  agent: AGENT_ERRORS,
  answerToken: ANSWER_TOKEN_ERRORS,
  artifact: ARTIFACT_ERRORS,
  call: CALL_ERRORS,
  common: COMMON_ERRORS,
  executor: EXECUTOR_ERRORS,
  group: GROUP_ERRORS,
  guard: GUARD_ERRORS,
  http: HTTP_ERRORS,
  message: MESSAGE_ERRORS,
  module: MODULE_ERRORS,
  policy: POLICY_ERRORS,
  question: QUESTION_ERRORS,
  role: ROLE_ERRORS,
};

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
    [API.execution.answerTokens.create, "/answer-tokens", { body: { name: "" } }],
    [API.execution.answerTokens.revoke, "/answer-tokens/atk_missing"],
  ];
  for (const [route, path, options] of refusals) {
    const response = await request(route.split(" ")[0]!, path, options);
    expect(documentedCodes(route, response.status), `${route} ${response.status}`).toContain(response.body.error);
  }
});

test("GET /openapi.json - every documented error code is in an area's catalog with the status it is listed under", () => {
  const misplaced: string[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(document.paths))
    for (const [method, operation] of Object.entries<any>(methods))
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const codes: string[] = response.content?.["application/json"]?.schema.properties?.error?.enum ?? [];
        for (const code of codes)
          if (!Object.values(CATALOGS).some((catalog) => catalog[code] === Number(status))) misplaced.push(`${method} ${path}: ${status} ${code}`);
      }
  expect(misplaced).toEqual([]);
});

test("catalogs - a code is declared once per status: a code two areas send with the same status is imported, not declared again", () => {
  const declaredIn = new Map<string, string[]>();
  for (const [area, catalog] of Object.entries(CATALOGS))
    for (const [code, status] of Object.entries(catalog)) declaredIn.set(`${status} ${code}`, [...(declaredIn.get(`${status} ${code}`) ?? []), area]);
  expect([...declaredIn].filter(([, areas]) => areas.length > 1)).toEqual([]);
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
  const answerToken = A.IssuedAnswerToken.parse((await request("POST", "/answer-tokens", { body: { name: unique("docs-bot") } })).body);
  A.page("answerTokens", A.IssuedAnswerToken.omit({ token: true }).strict()).parse((await request("GET", "/answer-tokens")).body);
  expect(operationOf(API.execution.calls.answer).security).toEqual([{ adminToken: [] }, { answerToken: [] }]);
  expect(operationOf(API.execution.answerTokens.create).security).toEqual([{ adminToken: [] }]);
  expect(answerToken.token).toEqual(expect.any(String));
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
