import { beforeAll, expect, test } from "vitest";
import { RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, eventually, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const events = new RecordingPublisher();

beforeAll(async () => {
  toolgate = await testToolgate({ events });
  request = api(toolgate);
});

const listed = async (agent: { agent: { id: string }; token: string }) =>
  ((await request("GET", `/agents/${agent.agent.id}/tools`, { token: agent.token })).body.tools as Array<{ function: { name: string } }>).map((listedTool) => listedTool.function.name);

const putPolicy = async (id: string, body: Record<string, unknown>) => {
  const response = await request("PUT", `/policies/${id}`, { body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
};

test("a deny policy that reads no argument hides the tool from the agents it applies to, and only them; one that reads arguments leaves it listed", async () => {
  const role = await createRole(request, { name: unique("coder"), toolGroups: ["command"] });
  const junior = await createAgent(request, role.id, { level: 1 });
  const senior = await createAgent(request, role.id, { level: 3 });
  expect(await listed(junior)).toEqual(["run_command", "run_javascript"]);

  await putPolicy(unique("js-level"), {
    scope: `role:${role.id}`,
    cedar: '@reason("Level 3 and above only")\nforbid (principal, action == Action::"run_javascript", resource) unless { principal has level && principal.level >= 3 };',
  });
  await putPolicy(unique("no-rm"), { scope: "system", rule: { tool: "run_command", match: "rm *", effect: "deny" } });
  expect(await listed(junior)).toEqual(["run_command"]);
  expect(await listed(senior)).toEqual(["run_command", "run_javascript"]);

  const refused = await request("POST", `/agents/${junior.agent.id}/calls`, { token: junior.token, body: { tool: "run_javascript", arguments: { code: "return 1" } } });
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: "policy_denied", message: expect.stringContaining("Level 3 and above only") });
  const allowed = await request("POST", `/agents/${senior.agent.id}/calls`, { token: senior.token, body: { tool: "run_javascript", arguments: { code: "return 1" } } });
  expect(allowed.status, JSON.stringify(allowed.body)).toBe(202);

  const otherRole = await createRole(request, { name: unique("other"), toolGroups: ["command"] });
  expect(await listed(await createAgent(request, otherRole.id, { level: 1 }))).toEqual(["run_command", "run_javascript"]);
});

test("a catalog change that makes a policy invalid publishes policy.invalidated, GET /policies shows the problem, and the call fails closed", async () => {
  const group = unique("deploys");
  const deploy = unique("deploy");
  const target = { type: "object", properties: { target: { type: "string" } }, required: ["target"] };
  await putGroup(request, group, { description: "Deploys.", executor: { type: "client" }, tools: [tool(deploy, "Deploy.", target)] });
  const policyId = unique("no-prod");
  await putPolicy(policyId, { scope: "system", cedar: `forbid (principal, action == Action::"${deploy}", resource) when { context.input.target like "prod*" };` });
  const role = await createRole(request, { name: unique("deployer"), toolGroups: [group] });
  const agent = await createAgent(request, role.id);
  const call = (targetName: string) => request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: deploy, arguments: { target: targetName } } });
  expect((await call("dev")).status).toBe(202);
  expect((await call("prod-eu")).status).toBe(403);

  const replaced = await request("PUT", `/groups/${group}`, { body: { description: "Deploys.", executor: { type: "client" }, tools: [tool(deploy, "Deploy.", { type: "object", properties: { where: { type: "string" } } })] } });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  const announced = await eventually(async () => events.of("policy.invalidated").filter((event) => event.policyId === policyId), (found) => found.length > 0);
  expect(announced).toEqual([{ policyId, problems: [expect.stringContaining("target")], revision: expect.any(Number) }]);
  const listedPolicy = ((await request("GET", "/policies")).body.policies as Array<{ id: string; problems: Array<{ message: string }> }>).find((policy) => policy.id === policyId);
  expect(listedPolicy?.problems.map((problem) => problem.message)).toEqual([expect.stringContaining("target")]);

  const closed = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: deploy, arguments: { where: "dev" } } });
  expect(closed.status, JSON.stringify(closed.body)).toBe(403);
  expect(closed.body).toMatchObject({ error: "policy_denied", policies: [policyId] });

  const loggedOnly = await request("PUT", `/policies/${policyId}`, {
    body: { scope: "system", mode: "log_only", cedar: `forbid (principal, action == Action::"${deploy}", resource) when { context.input.target like "prod*" };` },
  });
  expect(loggedOnly.status, JSON.stringify(loggedOnly.body)).toBe(200);
  expect((await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: deploy, arguments: { where: "dev" } } })).status).toBe(202);
});

test("PUT /policies/:id with If-None-Match: * creates only: a second one is 412", async () => {
  const id = unique("create-only");
  const body = { scope: "system", rule: { tool: "run_command", match: "shutdown *", effect: "deny" } };
  expect((await request("PUT", `/policies/${id}`, { body, headers: { "if-none-match": "*" } })).status).toBe(201);
  const again = await request("PUT", `/policies/${id}`, { body, headers: { "if-none-match": "*" } });
  expect(again.status).toBe(412);
  expect(again.body).toMatchObject({ error: "version_conflict", currentVersion: 1 });
});

test("a policy nesting deeper than Cedar can evaluate is refused when saved, and one just within evaluates on every call", async () => {
  const chain = (terms: number) => Array.from({ length: terms }, (_, n) => `context.command like "never-${n} *"`).join(" || ");
  const deep = await request("PUT", `/policies/${unique("deep")}`, { body: { scope: "system", cedar: `forbid (principal, action == Action::"run_command", resource) when { ${chain(60)} };` } });
  expect(deep.status).toBe(400);
  expect(deep.body).toMatchObject({ error: "invalid_policy", message: expect.stringContaining("parentheses") });
  await putPolicy(unique("within"), { scope: "system", cedar: `forbid (principal, action == Action::"run_command", resource) when { ${chain(38)} };` });
  const agent = await createAgent(request, (await createRole(request, { name: unique("runner"), toolGroups: ["command"] })).id);
  const ran = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "run_command", arguments: { command: "git status; ls -la | grep x && echo $(date)" } } });
  expect(ran.status, JSON.stringify(ran.body)).toBe(202);
});
