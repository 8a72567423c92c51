import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { createAgent, createRole, moduleEvent, putGroup, secondInstance, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;

const URL_PARAMETERS = { type: "object", properties: { url: { type: "string" } }, required: ["url"] };

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor()]);
  request = api(toolgate);
});

afterAll(() => executor?.close());

type Issued = Awaited<ReturnType<typeof createAgent>>;

const toolsOf = async (agent: Issued, through: Api = request) => {
  const response = await through("GET", `/agents/${agent.agent.id}/tools`, { token: agent.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.tools as Array<{ function: { name: string; description: string } }>;
};

const call = (agent: Issued, name: string, args: Record<string, unknown>, through: Api = request) =>
  through("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name, arguments: args } });

/** A department's http_request behind its own proxy, as a group of that department's scope. */
async function departmentProxy(department: string) {
  const id = unique("proxy");
  const body = {
    description: "HTTP requests through the department's proxy.",
    scope: `department:${department}`,
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [tool("http_request", `Fetch a URL through the ${department} proxy.`, URL_PARAMETERS)],
  };
  const group = await putGroup(request, id, body);
  expect(group.scope).toBe(`department:${department}`);
  return id;
}

test("layers - a department's own http_request is in front for its agents, whose calls run on its executor; other agents keep the system's", async () => {
  const department = unique("dept");
  const proxy = await departmentProxy(department);
  const role = await createRole(request, { name: unique("role"), toolGroups: null });
  const inside = await createAgent(request, role.id, { department });
  const outside = await createAgent(request, role.id, { department: unique("other") });

  const insideTools = (await toolsOf(inside)).filter((listed) => listed.function.name === "http_request");
  expect(insideTools.map((listed) => listed.function.description)).toEqual([`Fetch a URL through the ${department} proxy.`]);
  const outsideTools = (await toolsOf(outside)).filter((listed) => listed.function.name === "http_request");
  expect(outsideTools).toHaveLength(1);
  expect(outsideTools[0]!.function.description).not.toContain("proxy");

  const ran = await call(inside, "http_request", { url: "https://example.com/inside" });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect((await request("GET", `/agents/${inside.agent.id}/calls/${ran.body.callId}`)).body).toMatchObject({ group: proxy, scope: `department:${department}` });
  const handedToRuntime = await call(outside, "http_request", { url: "https://example.com/outside" });
  expect(handedToRuntime.status, JSON.stringify(handedToRuntime.body)).toBe(202);
  expect(handedToRuntime.body.status).toBe("authorized");
  expect(executor.requestsFor("http_request").map((received) => received.body.arguments.url)).toEqual(["https://example.com/inside"]);

  const listed = await request("GET", `/groups?scope=${encodeURIComponent(`department:${department}`)}`);
  expect(listed.body.groups.map((group: { id: string }) => group.id)).toEqual([proxy]);
});

test("layers - a role that names its groups reaches its department's only when it names them; a cold instance reads them by scope", async () => {
  const department = unique("dept");
  const proxy = await departmentProxy(department);
  const naming = await createRole(request, { name: unique("role"), toolGroups: ["network", proxy] });
  const notNaming = await createRole(request, { name: unique("role"), toolGroups: ["network"] });
  const picked = await createAgent(request, naming.id, { department });
  const unpicked = await createAgent(request, notNaming.id, { department });
  const cold = api(await secondInstance(toolgate));

  expect((await toolsOf(picked, cold)).find((listed) => listed.function.name === "http_request")?.function.description).toContain("proxy");
  expect((await call(picked, "http_request", { url: "https://example.com/picked" }, cold)).status).toBe(200);
  expect((await toolsOf(unpicked, cold)).find((listed) => listed.function.name === "http_request")?.function.description).not.toContain("proxy");
  expect((await call(unpicked, "http_request", { url: "https://example.com/unpicked" }, cold)).status).toBe(202);
});

test("layers - an agent's own group is listed to it alone; to another agent its tool does not exist", async () => {
  const role = await createRole(request, { name: unique("role"), toolGroups: ["network"] });
  const owner = await createAgent(request, role.id);
  const stranger = await createAgent(request, role.id);
  const own = unique("own");
  const name = unique("my_notes");
  await putGroup(request, own, {
    description: "The agent's own notes.",
    scope: `agent:${owner.agent.id}`,
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [tool(name, "Keep a note.", { type: "object", properties: { text: { type: "string" } } })],
  });
  for (const through of [request, api(await secondInstance(toolgate))]) {
    expect((await toolsOf(owner, through)).map((listed) => listed.function.name)).toContain(name);
    expect((await toolsOf(stranger, through)).map((listed) => listed.function.name)).not.toContain(name);
    expect((await call(owner, name, { text: "mine" }, through)).status).toBe(200);
    const refused = await call(stranger, name, { text: "theirs" }, through);
    expect(refused.status, JSON.stringify(refused.body)).toBe(404);
    expect(refused.body.error).toBe("unknown_tool");
  }
  expect(executor.requestsFor(name).map((received) => received.body.agentId)).toEqual([owner.agent.id, owner.agent.id]);
});

test("layers - toolgate's own tools cannot be replaced in a narrower scope, and a scope naming no agent is refused", async () => {
  const shadowing = await request("PUT", `/groups/${unique("fake_org")}`, {
    body: { description: "Not the real one.", scope: "department:anyone", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool("find_role_by_name", "Find a role.")] },
  });
  expect(shadowing.status, JSON.stringify(shadowing.body)).toBe(409);
  expect(shadowing.body).toMatchObject({ error: "reserved_tool_name", toolName: "find_role_by_name" });
  const nobody = await request("PUT", `/groups/${unique("orphan")}`, {
    body: { description: "Nobody's.", scope: "agent:agt_no_such_agent", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(unique("orphan_tool"), "Do it.")] },
  });
  expect(nobody.status, JSON.stringify(nobody.body)).toBe(400);
  expect(nobody.body.error).toBe("invalid_group_def");
  expect(nobody.body.message).toContain("agt_no_such_agent");
});

test("layers - a department's and an agent's settings of a tool tighten everyone's and never loosen them", async () => {
  const department = unique("dept");
  const name = unique("fetch_page");
  await putGroup(request, unique("pages"), {
    description: "Fetch pages.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [{ ...tool(name, "Fetch a page.", URL_PARAMETERS), "x-toolgate": { repeatLimit: 0 } }],
  });
  const role = await createRole(request, { name: unique("role"), toolGroups: null });
  const inside = await createAgent(request, role.id, { department });
  const watched = await createAgent(request, role.id, { department });
  const outside = await createAgent(request, role.id);
  const settings = (scope: string, method: "PUT" | "POST", route: string, body?: unknown) =>
    request(method, `/tools/${name}${route}?scope=${encodeURIComponent(scope)}`, body === undefined ? {} : { body });

  expect((await request("PUT", `/tools/${name}/policy`, { body: { requireConfirmation: true } })).status).toBe(200);
  const loosened = await settings(`department:${department}`, "PUT", "/policy", { requireConfirmation: false, rateLimit: { perMinute: 1 } });
  expect(loosened.status, JSON.stringify(loosened.body)).toBe(200);
  expect(loosened.body).toMatchObject({ scope: `department:${department}`, policy: { requireConfirmation: true, rateLimit: { perMinute: 1 } } });
  expect((await settings(`agent:${watched.agent.id}`, "POST", "/disable")).status).toBe(200);

  expect((await call(inside, name, { url: "https://example.com/1" })).body.status).toBe("awaiting_confirmation");
  const limited = await call(inside, name, { url: "https://example.com/2" });
  expect(limited.status, JSON.stringify(limited.body)).toBe(429);
  for (const n of [1, 2]) expect((await call(outside, name, { url: `https://example.com/outside/${n}` })).body.status).toBe("awaiting_confirmation");
  expect((await toolsOf(watched)).map((listed) => listed.function.name)).not.toContain(name);
  expect((await call(watched, name, { url: "https://example.com/3" })).body.error).toBe("tool_disabled");
  expect((await toolsOf(inside)).map((listed) => listed.function.name)).toContain(name);

  const nobody = await settings("agent:agt_no_such_agent", "PUT", "/policy", { rateLimit: { perMinute: 1 } });
  expect(nobody.status, JSON.stringify(nobody.body)).toBe(400);
  expect(nobody.body.message).toContain("agt_no_such_agent");
});

test("layers - module events register a group at a scope like any other: redelivered, moved to another scope by a newer version, an older one ignored", async () => {
  const module = unique("dept_module");
  const [red, blue] = [unique("red"), unique("blue")];
  const name = unique("dept_tool");
  const loaded = (version: number, department: string) =>
    moduleEvent(
      "module.loaded",
      { module, version, description: `Tools of ${department}.`, scope: `department:${department}`, executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(name, `For ${department}.`)] },
      `${module}-${version}`,
    );
  const scopeNow = async () => (await request("GET", `/groups/${module}`)).body.scope;
  await handleModuleEvent(toolgate, loaded(1, red));
  await handleModuleEvent(toolgate, loaded(1, red));
  expect(await scopeNow()).toBe(`department:${red}`);
  await handleModuleEvent(toolgate, loaded(3, blue));
  await handleModuleEvent(toolgate, loaded(2, red));
  expect(await scopeNow()).toBe(`department:${blue}`);

  const role = await createRole(request, { name: unique("role"), toolGroups: null });
  const ofRed = await createAgent(request, role.id, { department: red });
  const ofBlue = await createAgent(request, role.id, { department: blue });
  const cold = api(await secondInstance(toolgate));
  expect((await toolsOf(ofRed, cold)).map((listed) => listed.function.name)).not.toContain(name);
  expect((await toolsOf(ofBlue, cold)).map((listed) => listed.function.name)).toContain(name);
  expect((await request("GET", `/groups?scope=${encodeURIComponent(`department:${red}`)}`)).body.groups).toEqual([]);
  // A role that picks the group by id, read cold (by id and by scope): the copy beside red's groups went with the move.
  const picking = await createRole(request, { name: unique("role"), toolGroups: [module] });
  const pickedRed = await createAgent(request, picking.id, { department: red });
  const pickedBlue = await createAgent(request, picking.id, { department: blue });
  const colder = api(await secondInstance(toolgate));
  expect((await toolsOf(pickedRed, colder)).map((listed) => listed.function.name)).not.toContain(name);
  expect((await toolsOf(pickedBlue, colder)).map((listed) => listed.function.name)).toContain(name);
  const copies = await toolgate.db.doc.send(
    new QueryCommand({ TableName: toolgate.db.table, KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": "CATALOG", ":prefix": `SCOPED#department:${red}#` } }),
  );
  expect(copies.Items).toEqual([]);
});

test("layers - an agent's tool layers name where each tool comes from and what it shadows, for the admin and the agent itself", async () => {
  const department = unique("dept");
  const proxy = await departmentProxy(department);
  const role = await createRole(request, { name: unique("role"), toolGroups: null });
  const agent = await createAgent(request, role.id, { department });
  const other = await createAgent(request, role.id);
  const own = unique("own");
  const note = unique("note");
  await putGroup(request, own, { description: "Its own.", scope: `agent:${agent.agent.id}`, executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(note, "Keep a note.")] });

  const layers = await request("GET", `/agents/${agent.agent.id}/tools/layers`);
  expect(layers.status, JSON.stringify(layers.body)).toBe(200);
  expect(layers.body.scopes).toEqual([`agent:${agent.agent.id}`, `department:${department}`, "system"]);
  const byName = new Map(layers.body.tools.map((listed: { name: string }) => [listed.name, listed]));
  expect(byName.get("http_request")).toEqual({ name: "http_request", group: proxy, scope: `department:${department}`, shadows: [{ group: "network", scope: "system" }] });
  expect(byName.get(note)).toEqual({ name: note, group: own, scope: `agent:${agent.agent.id}`, shadows: [] });
  expect(byName.get("run_command")).toEqual({ name: "run_command", group: "command", scope: "system", shadows: [] });
  const listed = (await toolsOf(agent)).map((tool) => tool.function.name);
  expect(layers.body.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([...listed].sort());

  expect((await request("GET", `/agents/${agent.agent.id}/tools/layers`, { token: agent.token })).body).toEqual(layers.body);
  const stranger = await request("GET", `/agents/${agent.agent.id}/tools/layers`, { token: other.token });
  expect(stranger.status).toBe(403);
});

test("departments - GET /departments answers each department in use with its active agents and its groups; admins only", async () => {
  const [busy, quiet, toolsOnly] = [unique("dept"), unique("dept"), unique("dept")];
  const role = await createRole(request, { name: unique("role"), toolGroups: null });
  const agents = await Promise.all([createAgent(request, role.id, { department: busy }), createAgent(request, role.id, { department: busy }), createAgent(request, role.id, { department: quiet })]);
  const proxy = await departmentProxy(toolsOnly);
  const departments = async () => {
    const response = await request("GET", "/departments");
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return new Map(response.body.departments.map((department: { name: string }) => [department.name, department]));
  };
  let listed = await departments();
  expect(listed.get(busy)).toEqual({ name: busy, agents: 2, groups: [] });
  expect(listed.get(quiet)).toEqual({ name: quiet, agents: 1, groups: [] });
  expect(listed.get(toolsOnly)).toEqual({ name: toolsOnly, agents: 0, groups: [proxy] });

  expect((await request("DELETE", `/agents/${agents[0]!.agent.id}`)).status).toBe(200);
  expect((await request("DELETE", `/agents/${agents[0]!.agent.id}`)).status).toBe(409);
  expect((await request("DELETE", `/agents/${agents[2]!.agent.id}`)).status).toBe(200);
  listed = await departments();
  expect(listed.get(busy)).toEqual({ name: busy, agents: 1, groups: [] });
  expect(listed.has(quiet)).toBe(false);

  const refused = await request("GET", "/departments", { token: agents[1]!.token });
  expect(refused.status).toBe(403);
});
