import { afterAll, beforeAll, expect, test } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { Keys } from "../../packages/core/src/dynamo/keys";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { agentOn, callTool, guarded, httpGroup, policyTool, readCall, unique } from "./helpers";
import type { Guarded } from "./helpers";

let g: Guarded;

beforeAll(async () => {
  g = await guarded();
});

afterAll(async () => {
  await g?.close();
});

async function setup(policy: Record<string, unknown> = { dangerous: true }) {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, policy)]);
  const caller = await agentOn(g.request, [group]);
  return { name, group, caller };
}

test("POST /agents/:id/calls - a dangerous tool answers 202 awaiting_confirmation and does not run", async () => {
  const { name, caller } = await setup({ dangerous: true });
  const response = await callTool(g.request, caller, name, { path: "/etc" });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toMatchObject({ callId: expect.stringMatching(/^call_/), status: "awaiting_confirmation" });
  expect(g.executor.requestsFor(name)).toHaveLength(0);
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record).toMatchObject({ status: "awaiting_confirmation", tool: name, arguments: { path: "/etc" } });
  expect(record).not.toHaveProperty("finishedAt");
});

test("POST /agents/:id/calls - requireConfirmation also waits for an admin", async () => {
  const { name, caller } = await setup({ requireConfirmation: true });
  const response = await callTool(g.request, caller, name, {});
  expect(response.status).toBe(202);
  expect(response.body.status).toBe("awaiting_confirmation");
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("PUT /tools/:name/policy - an override can turn confirmation off (and on) for the next call", async () => {
  const { name, caller } = await setup({ dangerous: true });
  const put = await g.request("PUT", `/tools/${name}/policy`, { body: { dangerous: false } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect(put.body.policy.dangerous).toBe(false);
  expect((await callTool(g.request, caller, name, { n: 1 })).status).toBe(200);
  await g.request("PUT", `/tools/${name}/policy`, { body: { requireConfirmation: true } });
  expect((await callTool(g.request, caller, name, { n: 2 })).status).toBe(202);
});

test("POST /calls/:callId/approve - the admin's approval runs the call once and records approvedBy and completed", async () => {
  const { name, caller } = await setup();
  const { body } = await callTool(g.request, caller, name, { path: "/tmp/x", password: "hunter2" });
  const approved = await g.request("POST", `/calls/${body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(approved.body).toMatchObject({ callId: body.callId, status: "completed", result: { type: "json" } });
  const requests = g.executor.requestsFor(name);
  expect(requests).toHaveLength(1);
  expect(requests[0]!.body).toMatchObject({ callId: body.callId, agentId: caller.agent.id, arguments: { path: "/tmp/x", password: "hunter2" } });
  const record = await readCall(g.request, caller.agent.id, body.callId);
  expect(record).toMatchObject({
    status: "completed",
    approvedBy: "admin",
    decidedAt: expect.any(String),
    finishedAt: expect.any(String),
    durationMs: expect.any(Number),
    arguments: { path: "/tmp/x", password: "[REDACTED]" },
  });
  expect(record).not.toHaveProperty("deniedBy");
});

test("POST /calls/:callId/deny - records denied with deniedBy, and the executor is never called", async () => {
  const { name, caller } = await setup();
  const { body } = await callTool(g.request, caller, name, { n: 1 });
  const denied = await g.request("POST", `/calls/${body.callId}/deny`);
  expect(denied.status, JSON.stringify(denied.body)).toBe(200);
  expect(denied.body).toMatchObject({ callId: body.callId, status: "denied", deniedBy: "admin" });
  const record = await readCall(g.request, caller.agent.id, body.callId);
  expect(record).toMatchObject({ status: "denied", deniedBy: "admin", finishedAt: expect.any(String), error: { code: "denied" } });
  expect(record).not.toHaveProperty("approvedBy");
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /calls/:callId/approve - an agent's token (even the caller's own) is 403 and runs nothing", async () => {
  const { name, caller, group } = await setup();
  const other = await agentOn(g.request, [group]);
  const { body } = await callTool(g.request, caller, name, {});
  for (const token of [caller.token, other.token]) {
    const approve = await g.request("POST", `/calls/${body.callId}/approve`, { token });
    expect(approve.status, JSON.stringify(approve.body)).toBe(403);
    const deny = await g.request("POST", `/calls/${body.callId}/deny`, { token });
    expect(deny.status).toBe(403);
  }
  expect((await g.request("POST", `/calls/${body.callId}/approve`, { token: null })).status).toBe(401);
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("awaiting_confirmation");
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /calls/:callId/approve - answering twice is 409, whichever the answers", async () => {
  const { name, caller } = await setup();
  const a = (await callTool(g.request, caller, name, { n: 1 })).body.callId;
  const b = (await callTool(g.request, caller, name, { n: 2 })).body.callId;
  expect((await g.request("POST", `/calls/${a}/approve`)).status).toBe(200);
  expect((await g.request("POST", `/calls/${b}/deny`)).status).toBe(200);
  for (const [callId, answer] of [[a, "approve"], [a, "deny"], [b, "approve"], [b, "deny"]] as const) {
    const again = await g.request("POST", `/calls/${callId}/${answer}`);
    expect(again.status, `${answer} ${callId}: ${JSON.stringify(again.body)}`).toBe(409);
    expect(again.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  }
  expect(g.executor.requestsFor(name)).toHaveLength(1);
  expect((await readCall(g.request, caller.agent.id, a)).status).toBe("completed");
  expect((await readCall(g.request, caller.agent.id, b)).status).toBe("denied");
});

test("POST /calls/:callId/approve - a call that never asked for confirmation, or no call at all, is 404", async () => {
  const { name, caller } = await setup({});
  const plain = await callTool(g.request, caller, name, {});
  expect(plain.status).toBe(200);
  for (const callId of [plain.body.callId, "call_01HZZZZZZZZZZZZZZZZZZZZZZZ", "nope"]) {
    expect((await g.request("POST", `/calls/${callId}/approve`)).status, callId).toBe(404);
    expect((await g.request("POST", `/calls/${callId}/deny`)).status, callId).toBe(404);
  }
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("POST /calls/:callId/approve - an approved call whose executor fails is recorded as error, answered 502", async () => {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { dangerous: true })], {
    executor: { type: "http", url: "http://127.0.0.1:9/unreachable" },
  });
  const caller = await agentOn(g.request, [group]);
  const { body } = await callTool(g.request, caller, name, {});
  const approved = await g.request("POST", `/calls/${body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(502);
  expect(approved.body).toMatchObject({ error: "executor_failed", callId: body.callId });
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({ status: "error", approvedBy: "admin", error: { code: "executor_failed" } });
});

async function expiringToolgate(): Promise<{ toolgate: Toolgate; request: Api }> {
  const toolgate = await testToolgate({ confirmationTimeoutMs: 4_000 });
  return { toolgate, request: api(toolgate) };
}

test("cleanup - a call nobody answered expires after confirmationTimeoutMs, and can no longer be approved", async () => {
  const { toolgate, request } = await expiringToolgate();
  const name = unique("tool");
  const group = await httpGroup(request, g.executor, [policyTool(name, { dangerous: true })]);
  const caller = await agentOn(request, [group]);
  const { body } = await callTool(request, caller, name, {});
  const answered = (await callTool(request, caller, name, { n: 2 })).body.callId;
  expect((await request("POST", `/calls/${answered}/deny`)).status).toBe(200);

  expect((await toolgate.cleanup(new Date())).settled).toBe(0);
  expect((await readCall(request, caller.agent.id, body.callId)).status).toBe("awaiting_confirmation");

  const report = await toolgate.cleanup(new Date(Date.now() + 10_000));
  expect(report.settled).toBe(1);
  expect(await readCall(request, caller.agent.id, body.callId)).toMatchObject({
    status: "expired",
    error: { code: "confirmation_expired" },
    finishedAt: expect.any(String),
  });
  expect((await readCall(request, caller.agent.id, answered)).status).toBe("denied");

  const late = await request("POST", `/calls/${body.callId}/approve`);
  expect(late.status, JSON.stringify(late.body)).toBe(409);
  expect((await request("POST", `/calls/${body.callId}/deny`)).status).toBe(409);
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

/** The item toolgate keeps beside a call that awaits confirmation (read straight from DynamoDB Local). */
async function pendingItem(toolgate: Toolgate, callId: string) {
  const { Item } = await toolgate.db.doc.send(new GetCommand({ TableName: toolgate.db.table, Key: Keys.callRef(callId), ConsistentRead: true }));
  return Item;
}

test("POST /calls/:callId/approve and /deny - the arguments kept for the approval are sealed in the store and dropped once answered", async () => {
  const { name, caller } = await setup();
  const approvedCall = (await callTool(g.request, caller, name, { password: "SEKRIT-1" })).body.callId;
  const deniedCall = (await callTool(g.request, caller, name, { password: "SEKRIT-2" })).body.callId;
  for (const callId of [approvedCall, deniedCall]) {
    const kept = await pendingItem(g.toolgate, callId);
    expect(kept?.sealed).toEqual(expect.stringMatching(/^v1\./));
    expect(JSON.stringify(kept)).not.toContain("SEKRIT");
  }
  const approved = await g.request("POST", `/calls/${approvedCall}/approve`);
  expect(approved.status).toBe(200);
  expect(g.executor.requestsFor(name).at(-1)?.body.arguments).toEqual({ password: "SEKRIT-1" });
  await g.request("POST", `/calls/${deniedCall}/deny`);
  for (const callId of [approvedCall, deniedCall]) expect((await pendingItem(g.toolgate, callId))?.sealed).toBeUndefined();
});

test("cleanup - an expired confirmation drops the sealed arguments kept for the approval", async () => {
  const { toolgate, request } = await expiringToolgate();
  const name = unique("tool");
  const group = await httpGroup(request, g.executor, [policyTool(name, { dangerous: true })]);
  const caller = await agentOn(request, [group]);
  const { body } = await callTool(request, caller, name, { password: "SEKRIT-3" });
  expect((await pendingItem(toolgate, body.callId))?.sealed).toEqual(expect.any(String));
  await toolgate.cleanup(new Date(Date.now() + 10_000));
  expect((await readCall(request, caller.agent.id, body.callId)).status).toBe("expired");
  expect((await pendingItem(toolgate, body.callId))?.sealed).toBeUndefined();
});

test("POST /calls/:callId/approve - a client-executed tool needing confirmation is authorized on approval, then reported by the agent", async () => {
  const toolgate = await testToolgate();
  const request = api(toolgate);
  expect((await request("PUT", "/tools/write_file/policy", { body: { requireConfirmation: true } })).status).toBe(200);
  const caller = await agentOn(request, ["workspace"]);
  const { status, body } = await callTool(request, caller, "write_file", { path: "notes.md", content: "hello" });
  expect(status).toBe(202);
  expect(body.status).toBe("awaiting_confirmation");
  const early = await request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content: "too early" } });
  expect(early.status).toBe(409);

  const approved = await request("POST", `/calls/${body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(approved.body).toEqual({ callId: body.callId, status: "authorized", tool: "write_file", arguments: { path: "notes.md", content: "hello" }, deadline: expect.any(String) });
  expect(await readCall(request, caller.agent.id, body.callId)).toMatchObject({ status: "authorized", approvedBy: "admin", deadline: approved.body.deadline });

  const reported = await request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content: "wrote 5 bytes" } });
  expect(reported.status).toBe(200);
  expect(await readCall(request, caller.agent.id, body.callId)).toMatchObject({ status: "completed", approvedBy: "admin", result: { content: "wrote 5 bytes" } });
});

test("POST /calls/:callId/approve - a call of an agent terminated meanwhile was cancelled with it: approving or denying it is 409 and runs nothing", async () => {
  const { name, caller } = await setup();
  const { body } = await callTool(g.request, caller, name, {});
  expect((await g.request("DELETE", `/agents/${caller.agent.id}`)).status).toBe(200);
  for (const answer of ["approve", "deny"]) {
    const answered = await g.request("POST", `/calls/${body.callId}/${answer}`);
    expect(answered.status, JSON.stringify(answered.body)).toBe(409);
    expect(answered.body).toMatchObject({ error: "agent_terminated", message: expect.stringContaining("was terminated") });
  }
  expect(g.executor.requestsFor(name)).toHaveLength(0);
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({ status: "cancelled", error: { code: "agent_terminated" } });
});

test("POST /calls/:callId/approve - a call whose tool was unregistered meanwhile is 409 and not run", async () => {
  const { name, group, caller } = await setup();
  const { body } = await callTool(g.request, caller, name, {});
  expect((await g.request("DELETE", `/groups/${group}`)).status).toBe(204);
  const approved = await g.request("POST", `/calls/${body.callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(409);
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("awaiting_confirmation");
  expect(g.executor.requestsFor(name)).toHaveLength(0);
});

test("POST /calls/:callId/approve - a tool disabled after the call was queued is not run by the approval", async () => {
  const { name, caller } = await setup();
  const { body } = await callTool(g.request, caller, name, { path: "/queued" });
  expect((await g.request("POST", `/tools/${name}/disable`)).status).toBe(200);
  const approved = await g.request("POST", `/calls/${body.callId}/approve`);
  expect(approved.status).toBe(409);
  expect(approved.body).toMatchObject({ error: "no_longer_allowed", reason: "tool_disabled" });
  expect(g.executor.requestsFor(name)).toHaveLength(0);
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("awaiting_confirmation");
  expect((await g.request("POST", `/calls/${body.callId}/deny`)).status).toBe(200);
});
