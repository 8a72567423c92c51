import { beforeAll, expect, test } from "vitest";
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

async function everyPage(query: string, limit: number) {
  const agents: any[] = [];
  let cursor: string | undefined;
  do {
    const response = await request("GET", `/agents?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.agents.length).toBeLessThanOrEqual(limit);
    agents.push(...response.body.agents);
    cursor = response.body.nextCursor;
  } while (cursor);
  return agents;
}

test("GET /agents - every agent newest first, paged, by role and by status, without token versions", async () => {
  const [roleA, roleB] = [await createRole(request, { name: unique("lister") }), await createRole(request, { name: unique("other") })];
  const created: Array<{ id: string; roleId: string }> = [];
  for (let i = 0; i < 7; i++) {
    created.push((await createAgent(request, (i % 2 ? roleB : roleA).id, { name: `agent-${i}` })).agent);
    await new Promise((done) => setTimeout(done, 5));
  }
  const terminated = [created[1]!.id, created[3]!.id];
  for (const id of terminated) expect((await request("DELETE", `/agents/${id}`)).status).toBe(200);
  const newestFirst = [...created].reverse().map((agent) => agent.id);

  const all = await everyPage("", 3);
  expect(all.map((agent) => agent.id).filter((id) => newestFirst.includes(id))).toEqual(newestFirst);
  expect(all.map((agent) => agent.id)).toContain("root");
  for (const agent of all) expect(agent).not.toHaveProperty("tokenVersion");
  const createdAt = all.map((agent) => agent.createdAt);
  expect([...createdAt].sort().reverse()).toEqual(createdAt);

  expect((await everyPage(`roleId=${roleA.id}`, 2)).map((agent) => agent.id)).toEqual(newestFirst.filter((id) => created.find((a) => a.id === id)!.roleId === roleA.id));
  expect((await everyPage(`roleId=${roleB.id}&status=terminated`, 1)).map((agent) => agent.id)).toEqual([created[3]!.id, created[1]!.id]);
  const active = await everyPage(`roleId=${roleB.id}&status=active`, 10);
  expect(active.map((agent) => agent.id)).toEqual([created[5]!.id]);
  expect(active[0]).toMatchObject({ name: "agent-5", status: "active", roleId: roleB.id, createdBy: "admin" });
  const everyTerminated = (await everyPage("status=terminated", 100)).map((agent) => agent.id);
  expect(everyTerminated).toEqual([created[3]!.id, created[1]!.id]);
});

test("GET /agents - admin only; a bad query is 400 invalid_query, a foreign cursor 400 invalid_cursor", async () => {
  const role = await createRole(request, { name: unique("guarded") });
  const { token } = await createAgent(request, role.id);
  expect((await request("GET", "/agents", { token })).status).toBe(403);
  for (const query of ["limit=0", "limit=101", "limit=ten", "status=paused", "roleId=", "order=asc"]) {
    const response = await request("GET", `/agents?${query}`);
    expect(response.status, query).toBe(400);
    expect(response.body.error, query).toBe("invalid_query");
  }
  const page = await request("GET", "/agents?status=active&limit=1");
  expect(page.body.nextCursor).toBeDefined();
  const foreign = await request("GET", `/agents?status=terminated&cursor=${page.body.nextCursor}`);
  expect(foreign.status).toBe(400);
  expect(foreign.body.error).toBe("invalid_cursor");
});

test("spawn_agent - the result says how the new agent gets started", async () => {
  const root = await request("POST", "/agents/root/token");
  expect(root.status).toBe(201);
  const role = await createRole(request, { name: unique("spawned"), toolGroups: [] });
  const spawned = await request("POST", "/agents/root/calls", { token: root.body.token, body: { tool: "spawn_agent", arguments: { roleId: role.id } } });
  expect(spawned.status, JSON.stringify(spawned.body)).toBe(200);
  const result = JSON.parse(spawned.body.result.content);
  expect(result.start).toContain(`POST /agents/${result.agentId}/token`);
  expect(result.start).toContain("agent.spawned");
  const withTask = await request("POST", "/agents/root/calls", {
    token: root.body.token,
    body: { tool: "spawn_agent_with_task", arguments: { roleId: role.id, task: "Summarise the logs." } },
  });
  expect(JSON.parse(withTask.body.result.content)).toMatchObject({ agentId: expect.any(String), messageId: expect.any(String), start: expect.stringContaining("POST /agents/") });
});

test("backfill - agents and waiting calls stored before the indexes are listed after cleanup, counted in their role, once", async () => {
  const legacy = await testToolgate();
  const legacyRequest = api(legacy);
  const { db } = legacy;
  const group = unique("legacy_group");
  await putGroup(legacyRequest, group, {
    description: "Guarded",
    executor: { type: "http", url: "http://127.0.0.1:9/run" },
    tools: [{ ...tool(unique("guarded")), "x-toolgate": { requireConfirmation: true } }],
  });
  const toolName = (await legacyRequest("GET", `/groups/${group}`)).body.tools[0].function?.name ?? (await legacyRequest("GET", `/groups/${group}`)).body.tools[0].name;
  const role = await createRole(legacyRequest, { name: unique("old"), toolGroups: [group] });
  const agent = await createAgent(legacyRequest, role.id);
  const waiting = await legacyRequest("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: {} } });
  expect(waiting.body.status, JSON.stringify(waiting.body)).toBe("awaiting_confirmation");

  // As an earlier version stored them: no listing attributes, no count, the waiting call among the running ones.
  const agentKey = { pk: `AGENT#${agent.agent.id}`, sk: "AGENT" };
  const { Item: stored } = await db.doc.send(new GetCommand({ TableName: db.table, Key: agentKey }));
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...agentKey, agent: stored!.agent } }));
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: `ROLE#${role.id}`, sk: "AGENTS" } }));
  const callKey = { pk: `AGENT#${agent.agent.id}`, sk: `CALL#${waiting.body.callId}` };
  const { Item: call } = await db.doc.send(new GetCommand({ TableName: db.table, Key: callKey }));
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: callKey,
      UpdateExpression: "SET gsi1pk = :running",
      ExpressionAttributeValues: { ":running": String(call!.gsi1pk).replace("AWAITING#", "RUNNING#") },
    }),
  );
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: "MIGRATION#listing-indexes", sk: "MIGRATION" } }));

  expect((await legacyRequest("GET", `/agents?roleId=${role.id}`)).body.agents).toEqual([]);
  expect((await legacyRequest("GET", "/calls?status=awaiting_confirmation")).body.calls).toEqual([]);
  const pending = await legacyRequest("DELETE", `/roles/${role.id}`);
  expect(pending.status).toBe(503);
  expect(pending.body.error).toBe("indexes_pending");

  expect((await legacy.cleanup()).indexed).toBe(2);
  expect((await legacy.cleanup()).indexed).toBe(0);
  expect((await legacyRequest("GET", `/agents?roleId=${role.id}`)).body.agents.map((a: { id: string }) => a.id)).toEqual([agent.agent.id]);
  expect((await legacyRequest("GET", "/calls?status=awaiting_confirmation")).body.calls.map((c: { callId: string }) => c.callId)).toEqual([waiting.body.callId]);
  expect((await legacyRequest("GET", `/agents/${agent.agent.id}/calls?tool=${toolName}`)).body.calls).toHaveLength(1);
  expect((await legacyRequest("DELETE", `/roles/${role.id}`)).body).toMatchObject({ error: "role_in_use", activeAgents: 1 });
  expect((await legacyRequest("DELETE", `/agents/${agent.agent.id}`)).status).toBe(200);
  expect((await legacyRequest("DELETE", `/roles/${role.id}`)).status).toBe(204);
});

test("backfill - active agents stored before departments were counted are counted in theirs after cleanup, once", async () => {
  const legacy = await testToolgate();
  const legacyRequest = api(legacy);
  const { db } = legacy;
  const department = unique("dept");
  const role = await createRole(legacyRequest, { name: unique("old"), toolGroups: null });
  const [active, terminated] = [await createAgent(legacyRequest, role.id, { department }), await createAgent(legacyRequest, role.id, { department })];
  expect((await legacyRequest("DELETE", `/agents/${terminated.agent.id}`)).status).toBe(200);

  // As an earlier version stored them: no department counts, no flags.
  for (const agent of [active, terminated]) {
    const key = { pk: `AGENT#${agent.agent.id}`, sk: "AGENT" };
    await db.doc.send(new UpdateCommand({ TableName: db.table, Key: key, UpdateExpression: "REMOVE inDepartment" }));
  }
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: "DEPARTMENTS", sk: `DEPARTMENT#${department}` } }));
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: "MIGRATION#departments", sk: "MIGRATION" } }));
  const departments = async () => (await legacyRequest("GET", "/departments")).body.departments.filter((listed: { name: string }) => listed.name === department);
  expect(await departments()).toEqual([]);

  expect((await legacy.cleanup()).counted).toBe(1);
  expect((await legacy.cleanup()).counted).toBe(0);
  expect(await departments()).toEqual([{ name: department, agents: 1, groups: [] }]);
  expect((await legacyRequest("DELETE", `/agents/${active.agent.id}`)).status).toBe(200);
  expect(await departments()).toEqual([]);
});
