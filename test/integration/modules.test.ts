import { afterAll, beforeAll, expect, test, vi } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { moduleEvent, sleep, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const quiet = vi.spyOn(console, "log").mockImplementation(() => {});

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

afterAll(() => quiet.mockRestore());

const deliver = (detailType: string, detail: Record<string, unknown>, id?: string) => handleModuleEvent(toolgate, moduleEvent(detailType, detail, id));

const loaded = (module: string, version: number, extra: Record<string, unknown> = {}) => ({
  module,
  version,
  description: `${module} v${version}`,
  tools: [tool(`${module}_v${version}`)],
  ...extra,
});

const readModule = async (name: string) => {
  const response = await request("GET", `/modules/${name}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

test("module.loaded - registers the module's group with source module and GET /modules/:name shows it loaded", async () => {
  const name = unique("chrome");
  const toolName = unique("open_tab");
  await deliver("module.loaded", { module: name, version: 1, description: "Chrome controller", tools: [tool(toolName)], executor: { type: "http", url: "http://127.0.0.1:9/run" } });
  const group = await request("GET", `/groups/${name}`);
  expect(group.status).toBe(200);
  expect(group.body).toMatchObject({ id: name, description: "Chrome controller", source: "module", module: name, reserved: false, executor: { type: "http", url: "http://127.0.0.1:9/run" } });
  expect((await request("GET", `/tools/${toolName}`)).body.group).toBe(name);
  expect(await readModule(name)).toMatchObject({ module: name, version: 1, status: "loaded", groupId: name, updatedAt: expect.any(String) });
  expect((await readModule(name)).reason).toBeUndefined();
});

test("module.loaded - a newer version replaces the module's group", async () => {
  const name = unique("upgrade");
  await deliver("module.loaded", loaded(name, 1));
  await deliver("module.loaded", loaded(name, 2));
  const group = await request("GET", `/groups/${name}`);
  expect(group.body.description).toBe(`${name} v2`);
  expect(group.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([`${name}_v2`]);
  expect((await request("GET", `/tools/${name}_v1`)).status).toBe(404);
  expect(await readModule(name)).toMatchObject({ version: 2, status: "loaded" });
});

test("module.loaded - a redelivered event changes nothing", async () => {
  const name = unique("redeliver");
  const event = moduleEvent("module.loaded", loaded(name, 1));
  await handleModuleEvent(toolgate, event);
  const groupBefore = (await request("GET", `/groups/${name}`)).body;
  const moduleBefore = await readModule(name);
  await sleep(15);
  await handleModuleEvent(toolgate, event);
  await handleModuleEvent(toolgate, structuredClone(event));
  expect((await request("GET", `/groups/${name}`)).body).toEqual(groupBefore);
  expect(await readModule(name)).toEqual(moduleBefore);
});

test("module.loaded - concurrent redeliveries of one event register the group once", async () => {
  const name = unique("burst");
  const event = moduleEvent("module.loaded", loaded(name, 1));
  const outcomes = await Promise.all([1, 2, 3].map(() => handleModuleEvent(toolgate, structuredClone(event))));
  expect(outcomes.filter((outcome) => outcome.outcome === "loaded")).toHaveLength(1);
  expect(await readModule(name)).toMatchObject({ version: 1, status: "loaded" });
  expect((await request("GET", "/groups")).body.groups.filter((g: { id: string }) => g.id === name)).toHaveLength(1);
});

test("module.loaded - an older version arriving after a newer one changes nothing", async () => {
  const name = unique("ordered");
  await deliver("module.loaded", loaded(name, 3));
  const groupBefore = (await request("GET", `/groups/${name}`)).body;
  const moduleBefore = await readModule(name);
  await sleep(15);
  await deliver("module.loaded", loaded(name, 2));
  await deliver("module.loaded", loaded(name, 3));
  await deliver("module.unloaded", { module: name, version: 1 });
  expect((await request("GET", `/groups/${name}`)).body).toEqual(groupBefore);
  expect(await readModule(name)).toEqual(moduleBefore);
  expect((await request("GET", `/tools/${name}_v2`)).status).toBe(404);
});

test("module.unloaded - an unload (v2) that arrives before its load (v1) leaves the module unloaded with no group", async () => {
  const name = unique("early");
  await deliver("module.unloaded", { module: name, version: 2 });
  await deliver("module.loaded", loaded(name, 1));
  expect(await readModule(name)).toMatchObject({ module: name, version: 2, status: "unloaded" });
  expect((await request("GET", `/groups/${name}`)).status).toBe(404);
  expect((await request("GET", `/tools/${name}_v1`)).status).toBe(404);
});

test("module.unloaded - removes the module's group and its tools", async () => {
  const name = unique("leaving");
  await deliver("module.loaded", loaded(name, 1));
  expect((await request("GET", `/groups/${name}`)).status).toBe(200);
  await deliver("module.unloaded", { module: name, version: 2 });
  expect((await request("GET", `/groups/${name}`)).status).toBe(404);
  expect((await request("GET", `/tools/${name}_v1`)).status).toBe(404);
  expect(await readModule(name)).toMatchObject({ version: 2, status: "unloaded", groupId: name });
  // And it can come back with a later deployment.
  await deliver("module.loaded", loaded(name, 3));
  expect((await request("GET", `/groups/${name}`)).body.module).toBe(name);
  expect(await readModule(name)).toMatchObject({ version: 3, status: "loaded" });
});

test("module.loaded - a reserved group id via toolGroupId is rejected and recorded with reason reserved_group_id", async () => {
  const name = unique("usurper");
  await deliver("module.loaded", loaded(name, 1, { toolGroupId: "workspace" }));
  const state = await readModule(name);
  expect(state).toMatchObject({ module: name, version: 1, status: "rejected", reason: { error: "reserved_group_id" } });
  expect(typeof state.reason.message).toBe("string");
  const workspace = await request("GET", "/groups/workspace");
  expect(workspace.body).toMatchObject({ source: "builtin", reserved: true });
  expect((await request("GET", `/tools/${name}_v1`)).status).toBe(404);
});

test("module.loaded - a tool name conflict is rejected and recorded with reason tool_name_conflict", async () => {
  const name = unique("clasher");
  await deliver("module.loaded", { module: name, version: 1, description: "x", tools: [tool(unique("fine")), tool("run_command")] });
  const state = await readModule(name);
  expect(state).toMatchObject({ status: "rejected", reason: { error: "tool_name_conflict", toolName: "run_command", ownerGroup: "command" } });
  expect((await request("GET", `/groups/${name}`)).status).toBe(404);
  expect((await request("GET", "/tools/run_command")).body.group).toBe("command");
});

test("module.loaded - invalid tools are rejected and recorded with reason invalid_group_def", async () => {
  for (const tools of [[tool("bad name")], [], [{ type: "function", function: { name: "no_params", description: "x", parameters: { type: "array" } } }], "nope"]) {
    const name = unique("broken");
    await deliver("module.loaded", { module: name, version: 1, description: "x", tools });
    const state = await readModule(name);
    expect(state, JSON.stringify(tools)).toMatchObject({ status: "rejected", reason: { error: "invalid_group_def" } });
    expect(typeof state.reason.message).toBe("string");
    expect((await request("GET", `/groups/${name}`)).status).toBe(404);
  }
});

test("module.loaded - a later valid version loads after a rejected one", async () => {
  const name = unique("fixed");
  await deliver("module.loaded", { module: name, version: 1, description: "x", tools: [tool("read_file")] });
  expect((await readModule(name)).status).toBe("rejected");
  await deliver("module.loaded", loaded(name, 2));
  expect(await readModule(name)).toMatchObject({ status: "loaded", version: 2 });
  expect((await readModule(name)).reason).toBeUndefined();
  expect((await request("GET", `/groups/${name}`)).body.module).toBe(name);
});

test("module.loaded - toolGroupId overrides the group id, and the unload removes that group", async () => {
  const name = unique("codesearch");
  const groupId = unique("search_tools");
  await deliver("module.loaded", loaded(name, 1, { toolGroupId: groupId }));
  expect((await request("GET", `/groups/${groupId}`)).body).toMatchObject({ id: groupId, source: "module", module: name });
  expect((await request("GET", `/groups/${name}`)).status).toBe(404);
  expect(await readModule(name)).toMatchObject({ status: "loaded", groupId });
  await deliver("module.unloaded", { module: name, version: 2 });
  expect((await request("GET", `/groups/${groupId}`)).status).toBe(404);
  expect(await readModule(name)).toMatchObject({ status: "unloaded", groupId });
});

test("GET /modules - lists every module with its status", async () => {
  const [a, b, c] = [unique("list_a"), unique("list_b"), unique("list_c")];
  await deliver("module.loaded", loaded(a, 1));
  await deliver("module.loaded", loaded(b, 1));
  await deliver("module.unloaded", { module: b, version: 2 });
  await deliver("module.loaded", loaded(c, 1, { toolGroupId: "console" }));
  const response = await request("GET", "/modules");
  expect(response.status).toBe(200);
  const byName = new Map((response.body.modules as Array<{ module: string; status: string; version: number }>).map((m) => [m.module, m]));
  expect(byName.get(a)).toMatchObject({ status: "loaded", version: 1, groupId: a });
  expect(byName.get(b)).toMatchObject({ status: "unloaded", version: 2 });
  expect(byName.get(c)).toMatchObject({ status: "rejected", version: 1, reason: { error: "reserved_group_id" } });
});

test("GET /modules/:name - a module never heard of is 404", async () => {
  const response = await request("GET", `/modules/${unique("unheard")}`);
  expect(response.status).toBe(404);
  expect(typeof response.body.error).toBe("string");
  expect(typeof response.body.message).toBe("string");
});

test("module.unloaded - does not delete a group now owned by another module", async () => {
  const shared = unique("shared");
  const [first, second] = [unique("first"), unique("second")];
  await deliver("module.loaded", { module: first, version: 1, toolGroupId: shared, description: "first's", tools: [tool(`${shared}_a`)] });
  await deliver("module.loaded", { module: second, version: 1, toolGroupId: shared, description: "second's", tools: [tool(`${shared}_b`)] });
  expect((await request("GET", `/groups/${shared}`)).body).toMatchObject({ module: second, description: "second's" });
  await deliver("module.unloaded", { module: first, version: 2 });
  expect((await request("GET", `/groups/${shared}`)).body).toMatchObject({ module: second, description: "second's" });
  expect((await request("GET", `/tools/${shared}_b`)).body.group).toBe(shared);
  expect((await readModule(first)).status).toBe("unloaded");
  expect((await readModule(second)).status).toBe("loaded");
});

test("module.unloaded - does not delete a group an admin has since replaced through the API", async () => {
  const name = unique("adopted");
  await deliver("module.loaded", loaded(name, 1));
  const put = await request("PUT", `/groups/${name}`, { body: { description: "now the admin's", tools: [tool(`${name}_admin`)] } });
  expect(put.status).toBe(200);
  await deliver("module.unloaded", { module: name, version: 2 });
  expect((await request("GET", `/groups/${name}`)).body).toMatchObject({ source: "api", description: "now the admin's" });
});

test("module.loaded - an event without a valid module and version changes nothing", async () => {
  const name = unique("nameless");
  for (const detail of [{ version: 1, description: "x", tools: [tool(name)] }, { module: name, description: "x", tools: [tool(name)] }, { module: name, version: "one", tools: [] }, { module: name, version: -1, tools: [] }]) {
    await expect(deliver("module.loaded", detail)).resolves.toBeDefined();
  }
  expect((await request("GET", `/modules/${name}`)).status).toBe(404);
  expect((await request("GET", `/tools/${name}`)).status).toBe(404);
});

test("module.loaded - a module's group appears to agents of an all-groups role and goes when the module unloads", async () => {
  const name = unique("visible");
  await deliver("module.loaded", loaded(name, 1));
  const role = (await request("POST", "/roles", { body: { name: unique("all"), toolGroups: null } })).body;
  const agent = (await request("POST", "/agents", { body: { roleId: role.id } })).body.agent;
  const tools = (await request("GET", `/agents/${agent.id}/tools`)).body;
  expect(tools.toolGroups).toContain(name);
  await deliver("module.unloaded", { module: name, version: 2 });
  expect((await request("GET", `/agents/${agent.id}/tools`)).body.toolGroups).not.toContain(name);
});

test("module.loaded - versions of one module delivered concurrently settle on the newest", async () => {
  const name = unique("stampede");
  await Promise.all([2, 4, 1, 3].map((version) => deliver("module.loaded", loaded(name, version))));
  expect(await readModule(name)).toMatchObject({ version: 4, status: "loaded" });
  const group = (await request("GET", `/groups/${name}`)).body;
  expect(group.description).toBe(`${name} v4`);
  expect(group.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([`${name}_v4`]);
});

test("module.loaded - two modules claiming one tool name concurrently: one loads, the other is rejected", async () => {
  const shared = unique("contested");
  const [a, b] = [unique("mod_a"), unique("mod_b")];
  await Promise.all([
    deliver("module.loaded", { module: a, version: 1, description: "a", tools: [tool(shared)] }),
    deliver("module.loaded", { module: b, version: 1, description: "b", tools: [tool(shared)] }),
  ]);
  const states = [await readModule(a), await readModule(b)];
  expect(states.map((state) => state.status).sort()).toEqual(["loaded", "rejected"]);
  const winner = states.find((state) => state.status === "loaded")!.module;
  const loser = states.find((state) => state.status === "rejected")!;
  expect(loser.reason).toMatchObject({ error: "tool_name_conflict", toolName: shared, ownerGroup: winner });
  expect((await request("GET", `/tools/${shared}`)).body.group).toBe(winner);
});

test("module.unloaded - naming another module's group via toolGroupId does not delete it", async () => {
  const [owner, intruder] = [unique("owner"), unique("intruder")];
  await deliver("module.loaded", loaded(owner, 1));
  await deliver("module.unloaded", { module: intruder, version: 1, toolGroupId: owner });
  expect((await request("GET", `/groups/${owner}`)).body).toMatchObject({ module: owner });
  expect((await readModule(intruder)).status).toBe("unloaded");
});

test("module.loaded - a new version under a different toolGroupId moves the module's group rather than leaving the old one behind", async () => {
  const name = unique("mover");
  const [first, second] = [unique("first_group"), unique("second_group")];
  await deliver("module.loaded", { module: name, version: 1, toolGroupId: first, description: "v1", tools: [tool(`${name}_t`)] });
  const moved = await deliver("module.loaded", { module: name, version: 2, toolGroupId: second, description: "v2", tools: [tool(`${name}_t`)] });
  expect(moved.outcome).toBe("loaded");
  expect(await readModule(name)).toMatchObject({ status: "loaded", version: 2, groupId: second });
  expect((await request("GET", `/groups/${second}`)).body).toMatchObject({ module: name, description: "v2" });
  expect((await request("GET", `/groups/${first}`)).status).toBe(404);
  expect((await request("GET", `/tools/${name}_t`)).body.group).toBe(second);
  await deliver("module.unloaded", { module: name, version: 3 });
  const leftovers = (await request("GET", "/groups")).body.groups.filter((g: { module?: string }) => g.module === name);
  expect(leftovers).toEqual([]);
});

test("module.loaded - a definition DynamoDB cannot store (too deeply nested) is recorded on the module, not thrown", async () => {
  const nested = (levels: number): Record<string, unknown> =>
    levels === 0 ? { type: "string" } : { type: "object", properties: { child: nested(levels - 1) } };
  const name = unique("deep");
  const outcome = await deliver("module.loaded", { module: name, version: 1, description: "x", tools: [tool(`${name}_t`, "Deep.", nested(20))] }).catch(
    (error: unknown) => ({ thrown: String(error) }),
  );
  expect(outcome).not.toHaveProperty("thrown");
  const state = await request("GET", `/modules/${name}`);
  expect(state.status).toBe(200);
  expect(["loaded", "rejected"]).toContain(state.body.status);
});
