import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { BUILTIN_IDS, BUILTIN_TOOLS, createAgent, createRole, putGroup, secondInstance, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

const allGroupIds = async () => ((await request("GET", "/groups")).body.groups as Array<{ id: string }>).map((group) => group.id).sort();

test("POST /roles - 201 with the role, its version, an ETag and effectiveToolGroups", async () => {
  const name = unique("Analyst");
  const response = await request("POST", "/roles", { body: { name, rolePrompt: "Analyse data.", toolGroups: ["workspace", "network"], llmServiceId: "gpt" } });
  expect(response.status).toBe(201);
  expect(response.body).toMatchObject({
    id: expect.stringMatching(/^rol_/),
    name,
    rolePrompt: "Analyse data.",
    toolGroups: ["workspace", "network"],
    effectiveToolGroups: ["workspace", "network"],
    llmServiceId: "gpt",
    status: "active",
    createdBy: "admin",
    version: 1,
  });
  expect(response.headers.get("etag")).toBe('"1"');
  const read = await request("GET", `/roles/${response.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(response.body);
});

test("POST /roles - no toolGroups means every group, and toolGroups null is kept", async () => {
  const role = await createRole(request, { name: unique("generalist") });
  expect(role.toolGroups).toBeNull();
  expect([...role.effectiveToolGroups].sort()).toEqual(await allGroupIds());
});

test("POST /roles - an invalid role is 400 invalid_role with details", async () => {
  const bodies: unknown[] = [
    {},
    { rolePrompt: "no name" },
    { name: "" },
    { name: "   " },
    { name: 42 },
    { name: unique("r"), toolGroups: "workspace" },
    { name: unique("r"), toolGroups: [42] },
    { name: unique("r"), toolGroups: ["not a group id!"] },
    { name: unique("r"), rolePrompt: 7 },
    { name: unique("r"), surprise: true },
    { name: "x".repeat(101) },
  ];
  for (const body of bodies) {
    const response = await request("POST", "/roles", { body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.error, JSON.stringify(body)).toBe("invalid_role");
    expect(typeof response.body.message).toBe("string");
    expect(Array.isArray(response.body.details)).toBe(true);
  }
});

test("POST /roles - unregistered groups are 400 unknown_tool_group listing them, and no role is created", async () => {
  const name = unique("dreamer");
  const [a, b] = [unique("nope"), unique("never")];
  const response = await request("POST", "/roles", { body: { name, toolGroups: ["workspace", a, b] } });
  expect(response.status).toBe(400);
  expect(response.body.error).toBe("unknown_tool_group");
  expect(response.body.unknownToolGroups).toEqual([a, b]);
  expect(response.body.message).toContain(a);
  expect(response.body.message).toContain(b);
  expect((await request("GET", `/roles/by-name/${name}`)).status).toBe(404);
});

test("POST /roles - a taken name is 409 role_name_taken, ignoring case", async () => {
  const name = unique("Reviewer");
  await createRole(request, { name });
  for (const variant of [name, name.toLowerCase(), name.toUpperCase()]) {
    const response = await request("POST", "/roles", { body: { name: variant } });
    expect(response.status, variant).toBe(409);
    expect(response.body.error).toBe("role_name_taken");
  }
  const roles = (await request("GET", "/roles")).body.roles as Array<{ name: string }>;
  expect(roles.filter((role) => role.name.toLowerCase() === name.toLowerCase())).toHaveLength(1);
});

test("POST /roles - concurrent creations of one name: exactly one succeeds", async () => {
  const name = unique("racer");
  const responses = await Promise.all([name, name.toUpperCase(), name].map((variant) => request("POST", "/roles", { body: { name: variant } })));
  expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409]);
});

test("GET /roles - lists every role, root included, each with effectiveToolGroups", async () => {
  const a = await createRole(request, { name: unique("lister_a"), toolGroups: ["artifact"] });
  const response = await request("GET", "/roles");
  expect(response.status).toBe(200);
  const roles = response.body.roles as Array<{ id: string; effectiveToolGroups: string[] }>;
  expect(roles.find((role) => role.id === "root")).toMatchObject({ name: "root", toolGroups: ["org_management"], effectiveToolGroups: ["org_management"] });
  expect(roles.find((role) => role.id === a.id)).toMatchObject({ effectiveToolGroups: ["artifact"] });
  for (const role of roles) expect(Array.isArray(role.effectiveToolGroups)).toBe(true);
});

test("GET /roles/by-name/:name - finds a role by its name, with effectiveToolGroups and ETag", async () => {
  const name = `${unique("Data")} Engineer`;
  const role = await createRole(request, { name, toolGroups: ["command"] });
  const response = await request("GET", `/roles/by-name/${encodeURIComponent(name)}`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ id: role.id, name, effectiveToolGroups: ["command"] });
  expect(response.headers.get("etag")).toBe('"1"');
});

test("GET /roles/:id, GET /roles/by-name/:name, PATCH /roles/:id - an unknown role is 404 role_not_found", async () => {
  for (const [method, path] of [
    ["GET", `/roles/${unique("rol")}`],
    ["GET", `/roles/by-name/${unique("nobody")}`],
    ["PATCH", `/roles/${unique("rol")}`],
  ] as const) {
    const response = await request(method, path, method === "PATCH" ? { body: { rolePrompt: "x" } } : {});
    expect(response.status, path).toBe(404);
    expect(response.body.error).toBe("role_not_found");
  }
});

test("PATCH /roles/:id - with a matching If-Match the change applies and ETag and version move on", async () => {
  const role = await createRole(request, { name: unique("patchy"), toolGroups: ["workspace"] });
  const first = await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "Second prompt." }, headers: { "if-match": '"1"' } });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ id: role.id, rolePrompt: "Second prompt.", version: 2, toolGroups: ["workspace"], effectiveToolGroups: ["workspace"] });
  expect(first.headers.get("etag")).toBe('"2"');

  const second = await request("PATCH", `/roles/${role.id}`, { body: { toolGroups: ["workspace", "network"] }, headers: { "if-match": first.headers.get("etag")! } });
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ version: 3, rolePrompt: "Second prompt.", effectiveToolGroups: ["workspace", "network"] });
  expect(second.body.notice).toBeUndefined();

  const read = await request("GET", `/roles/${role.id}`);
  expect(read.body).toMatchObject({ version: 3, rolePrompt: "Second prompt.", toolGroups: ["workspace", "network"] });
  expect(read.headers.get("etag")).toBe('"3"');
});

test("PATCH /roles/:id - a stale If-Match is 412 version_conflict and nothing is overwritten", async () => {
  const role = await createRole(request, { name: unique("contended"), rolePrompt: "Original." });
  expect((await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "Edited by A." }, headers: { "if-match": '"1"' } })).status).toBe(200);
  const stale = await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "Edited by B.", toolGroups: ["command"] }, headers: { "if-match": '"1"' } });
  expect(stale.status).toBe(412);
  expect(stale.body.error).toBe("version_conflict");
  expect(typeof stale.body.message).toBe("string");
  const read = await request("GET", `/roles/${role.id}`);
  expect(read.body).toMatchObject({ rolePrompt: "Edited by A.", version: 2, toolGroups: null });
});

test("PATCH /roles/:id - concurrent updates with the same If-Match: exactly one applies", async () => {
  const role = await createRole(request, { name: unique("duel") });
  const responses = await Promise.all(
    ["A", "B", "C"].map((who) => request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: who }, headers: { "if-match": '"1"' } })),
  );
  expect(responses.map((response) => response.status).sort()).toEqual([200, 412, 412]);
  const winner = responses.find((response) => response.status === 200)!.body.rolePrompt;
  expect((await request("GET", `/roles/${role.id}`)).body).toMatchObject({ version: 2, rolePrompt: winner });
});

test("PATCH /roles/:id - a version in the body works as If-Match", async () => {
  const role = await createRole(request, { name: unique("bodyversion") });
  const ok = await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "v2", version: 1 } });
  expect(ok.status).toBe(200);
  expect(ok.body.version).toBe(2);
  const stale = await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "lost", version: 1 } });
  expect(stale.status).toBe(412);
  expect(stale.body.error).toBe("version_conflict");
  expect((await request("GET", `/roles/${role.id}`)).body).toMatchObject({ rolePrompt: "v2", version: 2 });
});

test("PATCH /roles/:id - unregistered groups are 400 unknown_tool_group and the role keeps its groups", async () => {
  const role = await createRole(request, { name: unique("keeper"), toolGroups: ["artifact"] });
  const missing = unique("missing");
  const response = await request("PATCH", `/roles/${role.id}`, { body: { toolGroups: ["artifact", missing] } });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ error: "unknown_tool_group", unknownToolGroups: [missing] });
  expect((await request("GET", `/roles/${role.id}`)).body).toMatchObject({ toolGroups: ["artifact"], version: 1 });
});

test("PATCH /roles/:id - clearing groups (null or []) gives notice default_all_tool_groups and every group, including ones registered later", async () => {
  for (const cleared of [null, []]) {
    const role = await createRole(request, { name: unique("clearer"), toolGroups: ["workspace"] });
    const { agent } = await createAgent(request, role.id);
    const response = await request("PATCH", `/roles/${role.id}`, { body: { toolGroups: cleared } });
    expect(response.status, JSON.stringify(cleared)).toBe(200);
    expect(response.body.notice).toBe("default_all_tool_groups");
    expect(typeof response.body.message).toBe("string");
    expect([...response.body.effectiveToolGroups].sort()).toEqual(await allGroupIds());

    const later = unique("later");
    const laterTool = unique("later_tool");
    await putGroup(request, later, { description: "registered after the role was cleared", tools: [tool(laterTool)] });
    const read = await request("GET", `/roles/${role.id}`);
    expect(read.body.effectiveToolGroups).toContain(later);
    expect([...read.body.effectiveToolGroups].sort()).toEqual(await allGroupIds());
    const tools = await request("GET", `/agents/${agent.id}/tools`);
    expect(tools.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(laterTool);
  }
});

test("PATCH /roles/root - changing root's tool groups is 409 root_role_fixed", async () => {
  for (const toolGroups of [["workspace"], ["org_management", "workspace"], null, []]) {
    const response = await request("PATCH", "/roles/root", { body: { toolGroups } });
    expect(response.status, JSON.stringify(toolGroups)).toBe(409);
    expect(response.body.error).toBe("root_role_fixed");
  }
  const root = await request("GET", "/roles/root");
  expect(root.body).toMatchObject({ toolGroups: ["org_management"], effectiveToolGroups: ["org_management"] });
  const tools = await request("GET", "/agents/root/tools");
  expect(tools.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([...BUILTIN_TOOLS.org_management!].sort());
});

test("PATCH /roles/root - root's rolePrompt can change", async () => {
  const before = await request("GET", "/roles/root");
  const response = await request("PATCH", "/roles/root", { body: { rolePrompt: "You are the root agent, revised." }, headers: { "if-match": before.headers.get("etag")! } });
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ id: "root", rolePrompt: "You are the root agent, revised.", toolGroups: ["org_management"], version: before.body.version + 1 });
  expect((await request("GET", "/roles/root")).body.rolePrompt).toBe("You are the root agent, revised.");
});

test("PATCH /roles/:id - renaming frees the old name and takes the new one", async () => {
  const oldName = unique("Old");
  const newName = unique("New");
  const role = await createRole(request, { name: oldName });
  const renamed = await request("PATCH", `/roles/${role.id}`, { body: { name: newName } });
  expect(renamed.status).toBe(200);
  expect(renamed.body.name).toBe(newName);

  expect((await request("GET", `/roles/by-name/${newName}`)).body.id).toBe(role.id);
  expect((await request("GET", `/roles/by-name/${oldName}`)).status).toBe(404);
  const taken = await request("POST", "/roles", { body: { name: newName.toLowerCase() } });
  expect(taken.status).toBe(409);
  expect(taken.body.error).toBe("role_name_taken");
  const reused = await createRole(request, { name: oldName });
  expect(reused.id).not.toBe(role.id);
  expect((await request("GET", `/roles/by-name/${oldName}`)).body.id).toBe(reused.id);
});

test("PATCH /roles/:id - renaming to another role's name is 409 role_name_taken and changes nothing", async () => {
  const a = await createRole(request, { name: unique("Alpha") });
  const b = await createRole(request, { name: unique("Beta") });
  const response = await request("PATCH", `/roles/${b.id}`, { body: { name: a.name.toUpperCase(), rolePrompt: "should not stick" } });
  expect(response.status).toBe(409);
  expect(response.body.error).toBe("role_name_taken");
  expect((await request("GET", `/roles/${b.id}`)).body).toMatchObject({ name: b.name, version: 1, rolePrompt: "Do the work." });
  expect((await request("GET", `/roles/by-name/${b.name}`)).body.id).toBe(b.id);
  expect((await request("GET", `/roles/by-name/${a.name}`)).body.id).toBe(a.id);
});

test("PATCH /roles/:id - a malformed If-Match is 400", async () => {
  const role = await createRole(request, { name: unique("ifmatch") });
  const response = await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "x" }, headers: { "if-match": "not-a-version" } });
  expect(response.status).toBe(400);
  expect(typeof response.body.error).toBe("string");
  expect((await request("GET", `/roles/${role.id}`)).body.version).toBe(1);
});

test("roles - persist across a new Toolgate instance on the same table", async () => {
  const role = await createRole(request, { name: unique("durable"), toolGroups: ["workspace", "artifact"] });
  await request("PATCH", `/roles/${role.id}`, { body: { rolePrompt: "Durable prompt." } });
  const rootPrompt = unique("Root prompt");
  expect((await request("PATCH", "/roles/root", { body: { rolePrompt: rootPrompt } })).status).toBe(200);
  const fresh = api(await secondInstance(toolgate));
  const read = await fresh("GET", `/roles/${role.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: role.id, name: role.name, rolePrompt: "Durable prompt.", version: 2, effectiveToolGroups: ["workspace", "artifact"] });
  expect((await fresh("GET", `/roles/by-name/${role.name}`)).body.id).toBe(role.id);
  const roles = (await fresh("GET", "/roles")).body.roles as Array<{ id: string }>;
  expect(roles.filter((r) => r.id === "root")).toHaveLength(1);
  expect((await fresh("GET", "/roles/root")).body.rolePrompt).toBe(rootPrompt);
  expect(roles.map((r) => r.id)).toContain(role.id);
  expect((await fresh("GET", "/groups")).body.groups.filter((g: { reserved: boolean }) => g.reserved)).toHaveLength(BUILTIN_IDS.length);
});

test("PATCH /roles/:id - concurrent partial updates without If-Match all apply", async () => {
  const role = await createRole(request, { name: unique("shared_edit") });
  const edits = [{ rolePrompt: "Prompt from A." }, { llmServiceId: "service-from-b" }, { name: unique("renamed_by_c") }, { toolGroups: ["console"] }];
  const responses = await Promise.all(edits.map((body) => request("PATCH", `/roles/${role.id}`, { body })));
  expect(responses.map((r) => `${r.status} ${r.body.error ?? ""}`.trim())).toEqual(edits.map(() => "200"));
  expect((await request("GET", `/roles/${role.id}`)).body).toMatchObject({ ...Object.assign({}, ...edits), version: 1 + edits.length });
});

test("PATCH /roles/:id - a change of case only keeps the name claimed", async () => {
  const name = unique("casey");
  const role = await createRole(request, { name });
  const response = await request("PATCH", `/roles/${role.id}`, { body: { name: name.toUpperCase() } });
  expect(response.status).toBe(200);
  expect(response.body.name).toBe(name.toUpperCase());
  expect((await request("GET", `/roles/by-name/${name.toUpperCase()}`)).body.id).toBe(role.id);
  expect((await request("POST", "/roles", { body: { name } })).status).toBe(409);
});
