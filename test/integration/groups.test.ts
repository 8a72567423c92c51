import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, BUILTIN_IDS, BUILTIN_TOOLS, moduleEvent, putGroup, secondInstance, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

type Summary = { id: string; description: string; toolCount: number; tools: string[]; reserved: boolean; source: string; module?: string; updatedAt: string };

const listGroups = async (req: Api = request) => {
  const response = await req("GET", "/groups");
  expect(response.status).toBe(200);
  return response.body.groups as Summary[];
};

test("GET /groups - the seven built-in groups are present with exactly their tools, reserved, source builtin", async () => {
  const builtins = (await listGroups()).filter((group) => group.reserved);
  expect(builtins.map((group) => group.id).sort()).toEqual([...BUILTIN_IDS].sort());
  for (const group of builtins) {
    expect(group.source, group.id).toBe("builtin");
    expect([...group.tools].sort(), group.id).toEqual([...BUILTIN_TOOLS[group.id]!].sort());
    expect(group.toolCount, group.id).toBe(BUILTIN_TOOLS[group.id]!.length);
    expect(group.description.length, group.id).toBeGreaterThan(0);
  }
});

test("GET /groups/:id - a built-in group comes with full OpenAI function definitions", async () => {
  for (const id of BUILTIN_IDS) {
    const response = await request("GET", `/groups/${id}`);
    expect(response.status, id).toBe(200);
    expect(response.body).toMatchObject({ id, reserved: true, source: "builtin", toolCount: BUILTIN_TOOLS[id]!.length });
    expect(response.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([...BUILTIN_TOOLS[id]!].sort());
    for (const definition of response.body.tools) {
      expect(definition.type).toBe("function");
      expect(typeof definition.function.description).toBe("string");
      expect(definition.function.description.length).toBeGreaterThan(0);
      expect(definition.function.parameters.type).toBe("object");
    }
  }
});

test("GET /groups/:id - an unknown group is 404 group_not_found", async () => {
  const response = await request("GET", `/groups/${unique("missing")}`);
  expect(response.status).toBe(404);
  expect(response.body.error).toBe("group_not_found");
  expect(typeof response.body.message).toBe("string");
});

test("PUT /groups/:id - a new group is 201 with source api and can be read back in full", async () => {
  const id = unique("chrome");
  const [a, b] = [unique("open_tab"), unique("close_tab")];
  const definition = tool(a, "Open a tab.", { type: "object", properties: { url: { type: "string" } }, required: ["url"] });
  const response = await request("PUT", `/groups/${id}`, { body: { description: "Chrome control", tools: [definition, tool(b)] } });
  expect(response.status).toBe(201);
  expect(response.body).toMatchObject({ id, description: "Chrome control", toolCount: 2, reserved: false, source: "api" });
  expect(response.body.warning).toBeUndefined();

  const read = await request("GET", `/groups/${id}`);
  expect(read.status).toBe(200);
  expect(read.body.tools).toEqual([definition, tool(b)]);
  expect(read.body.module).toBeUndefined();
});

test("PUT /groups/:id - replacing an existing group is 200 with warning duplicate_group_id and the new tools replace the old", async () => {
  const id = unique("replace");
  const [oldTool, newTool] = [unique("old_tool"), unique("new_tool")];
  await putGroup(request, id, { description: "v1", tools: [tool(oldTool)] });
  const response = await request("PUT", `/groups/${id}`, { body: { description: "v2", tools: [tool(newTool)] } });
  expect(response.status).toBe(200);
  expect(response.body.warning).toBe("duplicate_group_id");
  expect(response.body).toMatchObject({ id, description: "v2", toolCount: 1 });

  expect((await request("GET", `/groups/${id}`)).body.description).toBe("v2");
  expect((await request("GET", `/tools/${newTool}`)).body.group).toBe(id);
  expect((await request("GET", `/tools/${oldTool}`)).status).toBe(404);
  expect((await listGroups()).filter((group) => group.id === id)).toHaveLength(1);
});

test("PUT /groups/:id - an invalid definition is 400 invalid_group_def with details naming the bad path", async () => {
  const cases: Array<{ body: unknown; path: string }> = [
    { body: { description: "x", tools: [tool("has space")] }, path: "tools.0.function.name" },
    { body: { description: "x", tools: [tool("ok_one"), { type: "function", function: { name: "ok_two", description: "d", parameters: { type: "string" } } }] }, path: "tools.1.function.parameters" },
    { body: { tools: [tool("ok_three")] }, path: "description" },
    { body: { description: "x", tools: [] }, path: "tools" },
    { body: { description: "x", tools: [tool("dup_tool"), tool("dup_tool")] }, path: "tools.1.function.name" },
    { body: { description: "x", tools: [tool("ok_four")], executor: { type: "http", url: "ftp://example.com" } }, path: "executor.url" },
  ];
  for (const { body, path } of cases) {
    const id = unique("bad");
    const response = await request("PUT", `/groups/${id}`, { body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.error).toBe("invalid_group_def");
    expect(typeof response.body.message).toBe("string");
    expect(response.body.details.map((d: { path: string }) => d.path), JSON.stringify(response.body)).toContain(path);
    expect((await request("GET", `/groups/${id}`)).status).toBe(404);
  }
});

test("PUT /groups/:id - every reserved id is 409 reserved_group_id and the built-in is untouched", async () => {
  for (const id of BUILTIN_IDS) {
    const response = await request("PUT", `/groups/${id}`, { body: { description: "hijack", tools: [tool(unique("hijack"))] } });
    expect(response.status, id).toBe(409);
    expect(response.body.error).toBe("reserved_group_id");
    const read = await request("GET", `/groups/${id}`);
    expect(read.body.source).toBe("builtin");
    expect(read.body.description).not.toBe("hijack");
  }
});

test("PUT /groups/:id - a tool name owned by another group is 409 tool_name_conflict naming toolName and ownerGroup", async () => {
  const builtinClash = await request("PUT", `/groups/${unique("clash")}`, { body: { description: "x", tools: [tool(unique("fine")), tool("read_file")] } });
  expect(builtinClash.status).toBe(409);
  expect(builtinClash.body).toMatchObject({ error: "tool_name_conflict", toolName: "read_file", ownerGroup: "workspace" });

  const owner = unique("owner");
  const shared = unique("shared_tool");
  await putGroup(request, owner, { description: "owner", tools: [tool(shared)] });
  const id = unique("thief");
  const response = await request("PUT", `/groups/${id}`, { body: { description: "thief", tools: [tool(shared)] } });
  expect(response.status).toBe(409);
  expect(response.body).toMatchObject({ error: "tool_name_conflict", toolName: shared, ownerGroup: owner });
  expect(response.body.message).toContain(shared);
  expect((await request("GET", `/groups/${id}`)).status).toBe(404);
  expect((await request("GET", `/tools/${shared}`)).body.group).toBe(owner);
});

test("DELETE /groups/:id - removes the group: 204, then 404 and its tools are unknown", async () => {
  const id = unique("doomed");
  const name = unique("doomed_tool");
  await putGroup(request, id, { description: "x", tools: [tool(name)] });
  const response = await request("DELETE", `/groups/${id}`);
  expect(response.status).toBe(204);
  expect(response.body).toBeUndefined();
  expect((await request("GET", `/groups/${id}`)).status).toBe(404);
  expect((await request("GET", `/tools/${name}`)).status).toBe(404);
  expect((await listGroups()).map((group) => group.id)).not.toContain(id);
  // The tool name is free again.
  await putGroup(request, unique("heir"), { description: "x", tools: [tool(name)] });
});

test("DELETE /groups/:id - an unknown group is 404 group_not_found", async () => {
  const response = await request("DELETE", `/groups/${unique("nothing")}`);
  expect(response.status).toBe(404);
  expect(response.body.error).toBe("group_not_found");
});

test("DELETE /groups/:id - a reserved group is 409 reserved_group_id and stays", async () => {
  for (const id of BUILTIN_IDS) {
    const response = await request("DELETE", `/groups/${id}`);
    expect(response.status, id).toBe(409);
    expect(response.body.error).toBe("reserved_group_id");
    expect((await request("GET", `/groups/${id}`)).status).toBe(200);
  }
});

test("GET /groups - summarises each group with id, scope, description, toolCount, tool names, reserved, source, executor (null: none bound) and updatedAt", async () => {
  const id = unique("summary");
  const names = [unique("s_one"), unique("s_two"), unique("s_three")];
  await putGroup(request, id, { description: "Summarised", tools: names.map((name) => tool(name)) });
  const summary = (await listGroups()).find((group) => group.id === id);
  expect(summary).toEqual({
    id,
    scope: "system",
    description: "Summarised",
    tokens: expect.any(Number),
    toolCount: 3,
    tools: names,
    reserved: false,
    source: "api",
    executor: null,
    updatedAt: expect.any(String),
  });
  expect(Number.isNaN(Date.parse(summary!.updatedAt))).toBe(false);
});

test("GET /groups - a module's group shows source module and the module's name", async () => {
  const name = unique("mod");
  await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module: name, version: 1, description: "From a module", tools: [tool(unique("mod_tool"))] }));
  const summary = (await listGroups()).find((group) => group.id === name);
  expect(summary).toMatchObject({ id: name, source: "module", module: name, reserved: false, toolCount: 1 });
});

test("GET /tools/:name - returns the owning group and the full definition", async () => {
  const builtin = await request("GET", "/tools/read_file");
  expect(builtin.status).toBe(200);
  expect(builtin.body).toMatchObject({ name: "read_file", group: "workspace", definition: { type: "function", function: { name: "read_file" } } });

  const id = unique("owned");
  const definition = { ...tool(unique("owned_tool")), "x-toolgate": { timeoutMs: 1234 } };
  await putGroup(request, id, { description: "x", tools: [definition] });
  const response = await request("GET", `/tools/${definition.function.name}`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ name: definition.function.name, group: id, definition });
});

test("GET /tools/:name - an unknown tool is 404 unknown_tool", async () => {
  const response = await request("GET", `/tools/${unique("ghost")}`);
  expect(response.status).toBe(404);
  expect(response.body.error).toBe("unknown_tool");
  expect(typeof response.body.message).toBe("string");
});

test("PUT /groups/:id - two concurrent registrations claiming the same tool name: exactly one wins, the catalog stays consistent", async () => {
  const other = api(await secondInstance(toolgate));
  for (let round = 0; round < 4; round++) {
    const shared = unique("contested");
    const [a, b] = [unique("left"), unique("right")];
    // Alternate between two requests on one instance and one request on each of two instances.
    const second = round % 2 === 0 ? request : other;
    const responses = await Promise.all([
      request("PUT", `/groups/${a}`, { body: { description: "a", tools: [tool(unique("a_own")), tool(shared)] } }),
      second("PUT", `/groups/${b}`, { body: { description: "b", tools: [tool(shared), tool(unique("b_own"))] } }),
    ]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses, JSON.stringify(responses.map((r) => r.body))).toEqual([201, 409]);
    const winner = responses[0]!.status === 201 ? a : b;
    const loser = winner === a ? b : a;
    const refused = responses.find((response) => response.status === 409)!;
    expect(refused.body).toMatchObject({ error: "tool_name_conflict", toolName: shared, ownerGroup: winner });

    for (const view of [request, other]) {
      const groups = await listGroups(view);
      expect(groups.filter((group) => group.tools.includes(shared)).map((group) => group.id)).toEqual([winner]);
      expect(groups.map((group) => group.id)).not.toContain(loser);
      expect((await view("GET", `/tools/${shared}`)).body.group).toBe(winner);
      expect((await view("GET", `/groups/${loser}`)).status).toBe(404);
    }
  }
});

test("PUT /groups/:id - concurrent registrations of different tools all land", async () => {
  const ids = Array.from({ length: 6 }, () => unique("parallel"));
  const responses = await Promise.all(ids.map((id) => request("PUT", `/groups/${id}`, { body: { description: id, tools: [tool(`${id}_t`)] } })));
  expect(responses.map((response) => response.status)).toEqual(ids.map(() => 201));
  const listed = (await listGroups()).map((group) => group.id);
  for (const id of ids) expect(listed).toContain(id);
});

test("catalog - a second instance on the same table sees groups registered and removed through the first on its next request", async () => {
  const other = api(await secondInstance(toolgate));
  const id = unique("fresh");
  const name = unique("fresh_tool");
  const { agent } = await agentWithGroups(other, null);
  // Warm the second instance's cache before the change.
  expect((await listGroups(other)).map((group) => group.id)).not.toContain(id);
  const toolsBefore = await other("GET", `/agents/${agent.id}/tools`);
  expect(toolsBefore.body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain(name);

  await putGroup(request, id, { description: "registered through the first instance", tools: [tool(name)] });

  expect((await listGroups(other)).map((group) => group.id)).toContain(id);
  expect((await other("GET", `/groups/${id}`)).status).toBe(200);
  expect((await other("GET", `/tools/${name}`)).body.group).toBe(id);
  const toolsAfter = await other("GET", `/agents/${agent.id}/tools`);
  expect(toolsAfter.body.toolGroups).toContain(id);
  expect(toolsAfter.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(name);
  // And the second instance refuses a conflicting registration it had not seen before.
  const clash = await other("PUT", `/groups/${unique("late")}`, { body: { description: "x", tools: [tool(name)] } });
  expect(clash.status).toBe(409);
  expect(clash.body.ownerGroup).toBe(id);

  expect((await request("DELETE", `/groups/${id}`)).status).toBe(204);
  expect((await other("GET", `/groups/${id}`)).status).toBe(404);
  expect((await other("GET", `/tools/${name}`)).status).toBe(404);
});

test("PUT /groups/:id - a tool whose parameters are not a valid JSON Schema is 400 invalid_group_def naming it, and nothing is stored", async () => {
  const id = unique("badschema");
  const response = await request("PUT", `/groups/${id}`, {
    body: { description: "x", tools: [tool(unique("fine")), tool(unique("broken"), "Broken.", { type: "object", properties: { x: { type: "bogus" } } })] },
  });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ error: "invalid_group_def", details: [{ path: "tools.1.function.parameters", message: "is not a valid JSON Schema" }] });
  expect((await request("GET", `/groups/${id}`)).status).toBe(404);
});

test("module.loaded - a tool whose parameters are not a valid JSON Schema is rejected with invalid_group_def", async () => {
  const module = unique("badschema_mod");
  const outcome = await handleModuleEvent(
    toolgate,
    moduleEvent("module.loaded", { module, version: 1, description: "x", tools: [tool(unique("broken"), "Broken.", { type: "object", required: "x" })] }),
  );
  expect(outcome).toMatchObject({ outcome: "rejected", reason: { error: "invalid_group_def", details: [{ path: "tools.0.function.parameters" }] } });
  expect((await request("GET", `/modules/${module}`)).body).toMatchObject({ status: "rejected" });
});
