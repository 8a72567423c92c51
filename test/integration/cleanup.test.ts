import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { WALK_MARGIN_MS } from "../../packages/core/src/cleanup";
import type { Toolgate } from "@toolgate/core/toolgate";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { agentWithGroups, eventually, moduleEvent, putGroup, unique } from "./helpers";

const DAY_MS = 86_400_000;
const quiet = vi.spyOn(console, "log").mockImplementation(() => {});
let executor: Executor;

beforeAll(async () => {
  executor = await startExecutor();
});

afterAll(async () => {
  quiet.mockRestore();
  await executor?.close();
});

/** A fresh table with an http-executed group and an agent allowed to call it. */
async function setup(toolPolicy: Record<string, unknown> = {}) {
  const toolgate = await testToolgate();
  const request = api(toolgate);
  const group = unique("exec");
  const name = unique("work");
  await putGroup(request, group, { description: "x", executor: { type: "http", url: executor.url }, tools: [{ ...tool(name), "x-toolgate": toolPolicy }] });
  const agent = await agentWithGroups(request, [group]);
  return { toolgate, request, group, name, agent };
}

const rawItem = async (toolgate: Toolgate, key: { pk: string; sk: string }) =>
  (await toolgate.db.doc.send(new GetCommand({ TableName: toolgate.db.table, Key: key, ConsistentRead: true }))).Item;

test("cleanup - deletes call records and event dedupe records once their expiry has passed, and nothing else", async () => {
  executor.respond({ body: { content: "done" } });
  const { toolgate, request, group, name, agent } = await setup();
  const completed = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } });
  const refused = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: unique("ghost") } });
  expect(completed.status).toBe(200);
  expect(refused.status).toBe(404);
  const moduleName = unique("mod");
  const eventId = unique("event");
  await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module: moduleName, version: 1, description: "x", tools: [tool(unique("mod_tool"))] }, eventId));
  const eventKey = { pk: `EVENT#${eventId}`, sk: "EVENT" };
  expect(await rawItem(toolgate, eventKey)).toBeDefined();
  const callIds = [completed.body.callId, refused.body.callId];
  const history = async () => ((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls as Array<{ callId: string }>).map((c) => c.callId);

  const now = Date.now();
  await toolgate.cleanup(new Date(now));
  expect((await history()).sort()).toEqual([...callIds].sort());
  expect(await rawItem(toolgate, eventKey)).toBeDefined();

  // Event dedupe records are kept for days, call records for the retention period (30 days).
  const afterEvents = await toolgate.cleanup(new Date(now + 8 * DAY_MS));
  expect(afterEvents.deleted).toBeGreaterThanOrEqual(1);
  expect(await rawItem(toolgate, eventKey)).toBeUndefined();
  expect((await history()).sort()).toEqual([...callIds].sort());

  const afterCalls = await toolgate.cleanup(new Date(now + 31 * DAY_MS));
  expect(afterCalls.deleted).toBeGreaterThanOrEqual(2);
  expect(await history()).toEqual([]);
  for (const callId of callIds) expect((await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).status).toBe(404);
  expect((await toolgate.cleanup(new Date(now + 31 * DAY_MS))).deleted).toBe(0);

  // Everything without an expiry survives even a run far in the future.
  await toolgate.cleanup(new Date(now + 3650 * DAY_MS));
  expect((await request("GET", `/groups/${group}`)).status).toBe(200);
  expect((await request("GET", `/groups/${moduleName}`)).status).toBe(200);
  expect((await request("GET", `/modules/${moduleName}`)).body.status).toBe("loaded");
  expect((await request("GET", `/roles/${agent.role.id}`)).status).toBe(200);
  expect((await request("GET", `/agents/${agent.agent.id}`, { token: agent.token })).status).toBe(200);
  expect((await request("GET", "/groups")).body.groups.filter((g: { reserved: boolean }) => g.reserved)).toHaveLength(7);
  // The agent still works, and new calls are recorded again.
  const again = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } });
  expect(again.status).toBe(200);
  expect(await history()).toEqual([again.body.callId]);
});

test("cleanup - a redelivered module event whose dedupe record was cleaned up still changes nothing", async () => {
  const { toolgate, request } = await setup();
  const moduleName = unique("mod");
  const event = moduleEvent("module.loaded", { module: moduleName, version: 1, description: "x", tools: [tool(unique("mod_tool"))] });
  await handleModuleEvent(toolgate, event);
  const before = (await request("GET", `/modules/${moduleName}`)).body;
  await toolgate.cleanup(new Date(Date.now() + 8 * DAY_MS));
  await handleModuleEvent(toolgate, event);
  expect((await request("GET", `/modules/${moduleName}`)).body).toEqual(before);
});

test("cleanup - marks a call still running past its deadline timed_out and leaves one within its deadline, whoever admitted it last", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((open) => (release = open));
  executor.respond(async () => {
    await gate;
    return { body: { content: "finally" } };
  });
  const toolgate = await testToolgate();
  const request = api(toolgate);
  const group = unique("exec");
  const [short, long] = [unique("short"), unique("long")];
  await putGroup(request, group, {
    description: "x",
    executor: { type: "http", url: executor.url },
    tools: [{ ...tool(short), "x-toolgate": { timeoutMs: 60_000 } }, { ...tool(long), "x-toolgate": { timeoutMs: 900_000 } }],
  });
  const agent = await agentWithGroups(request, [group]);
  const calls = [short, long].map((name) => request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } }));
  try {
    const listed = await eventually(
      async () => (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls as Array<{ callId: string; tool: string; status: string }>,
      (found) => found.length === 2,
    );
    const idOf = (name: string) => listed.find((call) => call.tool === name)!.callId;
    const statusOf = async (name: string) => (await request("GET", `/agents/${agent.agent.id}/calls/${idOf(name)}`)).body;
    const now = Date.now();

    expect((await toolgate.cleanup(new Date(now + 30_000))).settled).toBe(0);
    expect((await statusOf(short)).status).toBe("running");
    // Past the short call's deadline (its timeout and grace) and the walk's margin: only it is timed out.
    expect((await toolgate.cleanup(new Date(now + 65_000 + WALK_MARGIN_MS))).settled).toBe(1);
    expect(await statusOf(short)).toMatchObject({ status: "timed_out", error: { code: "tool_timeout" }, finishedAt: expect.any(String) });
    expect((await statusOf(long)).status).toBe("running");
    // Running cleanup again changes nothing; later the long call is overdue too.
    expect((await toolgate.cleanup(new Date(now + 65_000 + WALK_MARGIN_MS))).settled).toBe(0);
    expect((await statusOf(long)).status).toBe("running");
    expect((await toolgate.cleanup(new Date(now + 2 * 3_600_000))).settled).toBe(1);
    expect((await statusOf(long)).status).toBe("timed_out");
  } finally {
    release();
    await Promise.all(calls);
    executor.respond({ body: { content: "done" } });
  }
});

test("cleanup - a real call whose executor never answers is timed out once past its deadline, and the late answer does not undo it", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((open) => (release = open));
  executor.respond(async () => {
    await gate;
    return { body: { content: "finally" } };
  });
  const { toolgate, request, name, agent } = await setup({ timeoutMs: 60_000 });
  const pending = request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } });
  try {
    const listed = await eventually(
      async () => (await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls as Array<{ callId: string; status: string }>,
      (calls) => calls.length === 1,
    );
    expect(listed).toHaveLength(1);
    expect(listed[0]!.status).toBe("running");
    const callId = listed[0]!.callId;

    await toolgate.cleanup(new Date(Date.now() + 30_000));
    expect((await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).body.status).toBe("running");
    await toolgate.cleanup(new Date(Date.now() + 70_000));
    expect((await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).body).toMatchObject({ status: "timed_out", error: { code: "tool_timeout" } });

    release();
    const answered = await pending;
    expect(answered.status).toBe(504);
    expect(answered.body).toMatchObject({ error: "tool_timeout", callId });
    expect((await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).body.status).toBe("timed_out");
  } finally {
    release();
    await pending;
    executor.respond({ body: { content: "done" } });
  }
});

test("call records - a call admitted straight to running is in no index, so neither its start nor its settle writes one; its agent is indexed by the hour", async () => {
  executor.respond({ body: { content: "done" } });
  const { toolgate, request, name, agent } = await setup();
  const before = Date.now();
  const completed = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } });
  expect(completed.status).toBe(200);
  const item = await rawItem(toolgate, { pk: `AGENT#${agent.agent.id}`, sk: `CALL#${completed.body.callId}` });
  expect(item).toMatchObject({ call: { status: "completed" }, expiresAt: expect.any(Number) });
  for (const key of ["gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk"]) expect(item?.[key], key).toBeUndefined();
  const guard = await rawItem(toolgate, { pk: `AGENT#${agent.agent.id}`, sk: "GUARD" });
  const hour = Math.floor(before / 3_600_000) * 3_600;
  expect(guard?.gsi3pk).toMatch(/^ADMITTED#[0-3]$/);
  expect([`${String(hour).padStart(12, "0")}#${agent.agent.id}`, `${String(hour + 3_600).padStart(12, "0")}#${agent.agent.id}`]).toContain(guard?.gsi3sk);
});

test("cleanup - where the store applies TTL itself (AWS), cleanup sweeps nothing: TTL deletes expired records", async () => {
  executor.respond({ body: { content: "late" }, delayMs: 2_000 });
  const withTtl = await testToolgate({ expiresByTtl: true, defaultTimeoutMs: 100 });
  const request = api(withTtl);
  const group = unique("exec");
  const name = unique("work");
  await putGroup(request, group, { description: "x", executor: { type: "http", url: executor.url }, tools: [tool(name)] });
  const agent = await agentWithGroups(request, [group]);
  expect((await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: name } })).status).toBe(504);
  const report = await withTtl.cleanup(new Date(Date.now() + 3650 * DAY_MS));
  expect(report.deleted).toBe(0);
  expect((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls).toHaveLength(1);
});
