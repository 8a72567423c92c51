import { afterAll, beforeAll, expect, test } from "vitest";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentOn, allCalls, callTool, guarded, httpGroup, policyTool, statusCounts, unique, withinOneMinuteWindow } from "./helpers";
import type { Guarded } from "./helpers";

let g: Guarded;
let B: Api;

beforeAll(async () => {
  g = await guarded();
  g.executor.respond(({ body }) => ({ delayMs: 20, body: { content: JSON.stringify(body?.arguments), type: "json" } }));
  B = api(await testToolgate({ table: g.toolgate.db.table }));
});

afterAll(async () => {
  await g?.close();
});

async function limitedTool(policy: Record<string, unknown> = { rateLimit: { perMinute: 5 } }) {
  const name = unique("tool");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, policy)]);
  const caller = await agentOn(g.request, [group]);
  return { name, caller };
}

test("POST /agents/:id/calls - 20 simultaneous calls under perMinute 5 run exactly 5", async () => {
  const { name, caller } = await limitedTool();
  await withinOneMinuteWindow(15);
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => callTool(g.request, caller, name, { i })));
  expect(statusCounts(responses.map((r) => String(r.status)))).toEqual({ "200": 5, "429": 15 });
  expect(responses.filter((r) => r.status === 429).every((r) => r.body.error === "rate_limited")).toBe(true);
  expect(g.executor.requestsFor(name)).toHaveLength(5);
  const records = await allCalls(g.request, caller.agent.id);
  expect(statusCounts(records.map((r) => r.status))).toEqual({ completed: 5, refused: 15 });
  expect(statusCounts(records.filter((r) => r.status === "refused").map((r) => r.error.code))).toEqual({ rate_limited: 15 });
});

test("POST /agents/:id/calls - 10 + 10 simultaneous calls through two processes under perMinute 5 still run exactly 5", async () => {
  const { name, caller } = await limitedTool();
  await withinOneMinuteWindow(15);
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => callTool(i % 2 === 0 ? g.request : B, caller, name, { i })),
  );
  expect(statusCounts(responses.map((r) => String(r.status)))).toEqual({ "200": 5, "429": 15 });
  expect(g.executor.requestsFor(name)).toHaveLength(5);
  const records = await allCalls(g.request, caller.agent.id);
  expect(records).toHaveLength(20);
  expect(statusCounts(records.map((r) => r.status))).toEqual({ completed: 5, refused: 15 });
});

test("POST /agents/:id/calls - two warm processes splitting 20 simultaneous calls still run exactly 5", async () => {
  const { name, caller } = await limitedTool({ rateLimit: { perMinute: 7 } });
  await withinOneMinuteWindow(15);
  expect((await callTool(g.request, caller, name, { warm: "A" })).status).toBe(200);
  expect((await callTool(B, caller, name, { warm: "B" })).status).toBe(200);
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => callTool(i < 10 ? g.request : B, caller, name, { i })),
  );
  expect(statusCounts(responses.map((r) => String(r.status)))).toEqual({ "200": 5, "429": 15 });
  expect(g.executor.requestsFor(name)).toHaveLength(7);
});

test("POST /agents/:id/calls - simultaneous identical calls admit only threshold - 1 before the doom loop", async () => {
  const { name, caller } = await limitedTool({});
  const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => callTool(i % 2 ? g.request : B, caller, name, { same: true })));
  expect(statusCounts(responses.map((r) => `${r.status} ${r.body.error ?? r.body.status}`))).toEqual({
    "200 completed": 2,
    "429 doom_loop_detected": 8,
  });
  expect(g.executor.requestsFor(name)).toHaveLength(2);
});

test("POST /calls/:callId/approve - two simultaneous approvals run the tool exactly once: one 200, one 409", async () => {
  const { name, caller } = await limitedTool({ dangerous: true });
  const { body } = await callTool(g.request, caller, name, { once: true });
  const answers = await Promise.all([g.request("POST", `/calls/${body.callId}/approve`), g.request("POST", `/calls/${body.callId}/approve`)]);
  expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  expect(g.executor.requestsFor(name)).toHaveLength(1);
  const records = await allCalls(g.request, caller.agent.id);
  expect(records.map((r) => r.status)).toEqual(["completed"]);
});

test("POST /calls/:callId/approve - approvals racing through two processes run the tool exactly once", async () => {
  const { name, caller } = await limitedTool({ dangerous: true });
  const { body } = await callTool(g.request, caller, name, { once: true });
  const answers = await Promise.all([
    g.request("POST", `/calls/${body.callId}/approve`),
    B("POST", `/calls/${body.callId}/approve`),
    g.request("POST", `/calls/${body.callId}/approve`),
    B("POST", `/calls/${body.callId}/approve`),
  ]);
  expect(statusCounts(answers.map((a) => String(a.status)))).toEqual({ "200": 1, "409": 3 });
  expect(g.executor.requestsFor(name)).toHaveLength(1);
});

test("POST /calls/:callId/approve and /deny - racing answers settle the call once, consistently", async () => {
  const { name, caller } = await limitedTool({ dangerous: true });
  const { body } = await callTool(g.request, caller, name, { once: true });
  const [approve, deny] = await Promise.all([g.request("POST", `/calls/${body.callId}/approve`), B("POST", `/calls/${body.callId}/deny`)]);
  expect([approve.status, deny.status].sort()).toEqual([200, 409]);
  const record = (await g.request("GET", `/agents/${caller.agent.id}/calls/${body.callId}`)).body;
  if (approve.status === 200) {
    expect(record.status).toBe("completed");
    expect(g.executor.requestsFor(name)).toHaveLength(1);
  } else {
    expect(record.status).toBe("denied");
    expect(g.executor.requestsFor(name)).toHaveLength(0);
  }
});

test("POST /agents/:id/calls/:callId/result - simultaneous reports are accepted exactly once", async () => {
  const caller = await agentOn(g.request, ["workspace"]);
  const { body } = await callTool(g.request, caller, "get_workspace_info", {});
  const path = `/agents/${caller.agent.id}/calls/${body.callId}/result`;
  const reports = await Promise.all(
    Array.from({ length: 4 }, (_, i) => (i % 2 ? g.request : B)("POST", path, { token: caller.token, body: { content: `r${i}` } })),
  );
  expect(statusCounts(reports.map((r) => String(r.status)))).toEqual({ "200": 1, "409": 3 });
  const winner = reports.find((r) => r.status === 200)!.body.result.content;
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls/${body.callId}`)).body.result.content).toBe(winner);
});
