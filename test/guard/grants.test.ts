import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, callTool, expectRefused, guarded, readCall, unique } from "./helpers";
import type { AgentHandle, Guarded } from "./helpers";
import type { ApiResponse } from "../support/toolgate";

// No privilege escalation through org_management: an agent other than root grants only groups its own role has,
// and names them. The root agent and the admin (POST /roles) grant freely.

let g: Guarded;
let root: AgentHandle;
/** An agent whose role has org_management and artifact only. */
let manager: AgentHandle;
/** An agent whose role names no groups, so it has every group. */
let unlimited: AgentHandle;

beforeAll(async () => {
  g = await guarded();
  const issued = await g.request("POST", "/agents/root/token");
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  root = { agent: issued.body.agent, token: issued.body.token };
  manager = await agentOn(g.request, ["org_management", "artifact"]);
  unlimited = await agentOn(g.request, null);
});

afterAll(async () => {
  await g?.close();
});

/** A role made by the admin over REST. */
async function adminRole(toolGroups?: string[]) {
  const response = await g.request("POST", "/roles", { body: { name: unique("target"), rolePrompt: "Work.", ...(toolGroups ? { toolGroups } : {}) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; name: string; toolGroups: string[] | null };
}

/** A native call that completed: its parsed JSON result. */
async function completed(agent: AgentHandle, toolName: string, args: Record<string, unknown>) {
  const response = await callTool(g.request, agent, toolName, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.status, JSON.stringify(response.body)).toBe("completed");
  const record = await readCall(g.request, agent.agent.id, response.body.callId);
  expect(record.status).toBe("completed");
  return JSON.parse(response.body.result.content);
}

/** 403 cannot_grant_groups, recoverable, with a callId, recorded as refused with that code. */
async function expectCannotGrant(agent: AgentHandle, response: ApiResponse, groups?: string[]) {
  await expectRefused(g.request, agent.agent.id, response, 403, "cannot_grant_groups", true);
  expect(response.body).not.toHaveProperty("agentId");
  expect(response.body).not.toHaveProperty("result");
  if (groups) {
    expect(response.body.groups).toEqual(groups);
    for (const group of groups) expect(response.body.message).toContain(group);
  }
}

async function expectNoRole(name: string) {
  const response = await g.request("GET", `/roles/by-name/${name}`);
  expect(response.status, JSON.stringify(response.body)).toBe(404);
  expect(response.body.error).toBe("role_not_found");
}

async function expectAgent(agentId: string, roleId: string, createdBy: string) {
  expect(agentId).toMatch(/^agt_/);
  const agent = await g.request("GET", `/agents/${agentId}`);
  expect(agent.status, JSON.stringify(agent.body)).toBe(200);
  expect(agent.body).toMatchObject({ id: agentId, roleId, status: "active", createdBy });
}

for (const [label, toolGroups] of [
  ["without toolGroups", undefined],
  ["with toolGroups []", []],
] as const)
  test(`POST /agents/:id/calls - create_role ${label} by a non-root agent is 403 cannot_grant_groups telling it to name the groups, recorded as refused, and creates no role`, async () => {
    const name = unique("escalated");
    const response = await callTool(g.request, manager, "create_role", { name, rolePrompt: "Anything.", ...(toolGroups ? { toolGroups } : {}) });
    await expectCannotGrant(manager, response);
    expect(response.body.message).toMatch(/explicit/i);
    expect(response.body.message).toMatch(/name the groups/i);
    await expectNoRole(name);
  });

test("POST /agents/:id/calls - create_role with a group the caller's role lacks is 403 cannot_grant_groups naming exactly that group, and creates no role", async () => {
  const name = unique("wider");
  const response = await callTool(g.request, manager, "create_role", { name, rolePrompt: "x", toolGroups: ["artifact", "workspace"] });
  await expectCannotGrant(manager, response, ["workspace"]);
  await expectNoRole(name);
});

test("POST /agents/:id/calls - create_role with groups the caller's role has completes, and the role exists with those groups, created by the agent", async () => {
  const name = unique("narrow");
  const value = await completed(manager, "create_role", { name, rolePrompt: "Keep notes.", toolGroups: ["artifact"] });
  expect(value).toMatchObject({ name, toolGroups: ["artifact"], createdBy: manager.agent.id });
  const stored = await g.request("GET", `/roles/by-name/${name}`);
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({ id: value.id, name, toolGroups: ["artifact"], effectiveToolGroups: ["artifact"], createdBy: manager.agent.id });

  const same = unique("same");
  const all = await completed(manager, "create_role", { name: same, rolePrompt: "x", toolGroups: ["org_management", "artifact"] });
  expect(all.toolGroups).toEqual(["org_management", "artifact"]);
});

for (const toolName of ["spawn_agent", "spawn_agent_with_task"] as const) {
  const args = (roleId: string) => ({ roleId, ...(toolName === "spawn_agent_with_task" ? { task: "Do what the role allows." } : {}) });

  test(`POST /agents/:id/calls - ${toolName} into a role with a group the caller lacks is 403 cannot_grant_groups naming it, recorded as refused`, async () => {
    const role = await adminRole(["artifact", "network"]);
    await expectCannotGrant(manager, await callTool(g.request, manager, toolName, args(role.id)), ["network"]);
  });

  test(`POST /agents/:id/calls - ${toolName} into a role that names no groups (all groups) is 403 cannot_grant_groups, recorded as refused`, async () => {
    const role = await adminRole();
    expect(role.toolGroups === null || role.toolGroups.length === 0).toBe(true);
    const response = await callTool(g.request, manager, toolName, args(role.id));
    await expectCannotGrant(manager, response);
    expect(response.body.message).toMatch(/every tool group/);
  });

  test(`POST /agents/:id/calls - ${toolName} into a role with a subset of the caller's groups completes, and the agent exists`, async () => {
    const role = await adminRole(["artifact"]);
    const value = await completed(manager, toolName, args(role.id));
    await expectAgent(value.agentId, role.id, manager.agent.id);
    if (toolName === "spawn_agent_with_task") {
      const messages = await g.request("GET", `/agents/${value.agentId}/messages`);
      expect(messages.body.messages.map((m: { from: string; content: string }) => [m.from, m.content])).toEqual([[manager.agent.id, "Do what the role allows."]]);
    }
  });

  test(`POST /agents/:id/calls - ${toolName}: an agent whose role has all groups may spawn into an all-groups role`, async () => {
    const role = await adminRole();
    const value = await completed(unlimited, toolName, args(role.id));
    await expectAgent(value.agentId, role.id, unlimited.agent.id);
  });

  test(`POST /agents/:id/calls - ${toolName}: root may spawn into an all-groups role and into any groups`, async () => {
    for (const role of [await adminRole(), await adminRole(["artifact", "network", "command"])]) {
      const value = await completed(root, toolName, args(role.id));
      await expectAgent(value.agentId, role.id, "root");
    }
  });
}

test("POST /agents/:id/calls - an agent whose role has all groups still may not create_role without toolGroups, but may with an explicit list", async () => {
  for (const toolGroups of [undefined, []]) {
    const name = unique("unlimited_child");
    const response = await callTool(g.request, unlimited, "create_role", { name, rolePrompt: "x", ...(toolGroups ? { toolGroups } : {}) });
    await expectCannotGrant(unlimited, response);
    await expectNoRole(name);
  }
  const name = unique("explicit_child");
  const value = await completed(unlimited, "create_role", { name, rolePrompt: "x", toolGroups: ["network", "command"] });
  expect(value).toMatchObject({ name, toolGroups: ["network", "command"], createdBy: unlimited.agent.id });
});

test("POST /agents/:id/calls - root may create a role without toolGroups (all groups) and with groups it does not have itself", async () => {
  const name = unique("root_all");
  const value = await completed(root, "create_role", { name, rolePrompt: "x" });
  expect(value).toMatchObject({ name, createdBy: "root" });
  expect(value.toolGroups === null || value.toolGroups.length === 0).toBe(true);
  expect((await g.request("GET", `/roles/by-name/${name}`)).status).toBe(200);

  const wide = await completed(root, "create_role", { name: unique("root_wide"), rolePrompt: "x", toolGroups: ["workspace", "network"] });
  expect(wide.toolGroups).toEqual(["workspace", "network"]);
});

test("POST /roles - the admin may create a role without toolGroups: 201 with notice default_all_tool_groups and a message that it gets every group, including ones registered later", async () => {
  const response = await g.request("POST", "/roles", { body: { name: unique("admin_all"), rolePrompt: "x" } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expect(response.body.notice).toBe("default_all_tool_groups");
  expect(response.body.message).toMatch(/every tool group/);
  expect(response.body.message).toMatch(/registered later/);
  expect(response.body.effectiveToolGroups).toEqual(expect.arrayContaining(["org_management", "artifact", "workspace", "network"]));
});

test("POST /roles - with toolGroups there is no notice", async () => {
  const response = await g.request("POST", "/roles", { body: { name: unique("admin_some"), rolePrompt: "x", toolGroups: ["artifact"] } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expect(response.body).not.toHaveProperty("notice");
  expect(response.body).not.toHaveProperty("message");
  expect(response.body.toolGroups).toEqual(["artifact"]);
});
