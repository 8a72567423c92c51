import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let group: string;
const names = { guarded: unique("guarded"), other: unique("other"), free: unique("free") };

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  group = unique("approvals");
  // Nothing listens on port 9: these calls wait for an answer or are denied, and never reach the executor.
  await putGroup(request, group, {
    description: "Tools that need an admin's approval",
    executor: { type: "http", url: "http://127.0.0.1:9/run" },
    tools: [
      { ...tool(names.guarded, "Needs approval.", { type: "object", properties: {}, additionalProperties: true }), "x-toolgate": { requireConfirmation: true } },
      { ...tool(names.other, "Also needs approval."), "x-toolgate": { requireConfirmation: true } },
      tool(names.free, "Runs without approval."),
    ],
  });
});

type Issued = Awaited<ReturnType<typeof createAgent>>;

async function waitingCall(agent: Issued, toolName: string, args: Record<string, unknown> = {}) {
  const response = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: args } });
  expect(response.body.status, JSON.stringify(response.body)).toBe("awaiting_confirmation");
  return response.body.callId as string;
}

async function wholeQueue(limit: number) {
  const calls: any[] = [];
  let cursor: string | undefined;
  do {
    const response = await request("GET", `/calls?status=awaiting_confirmation&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.calls.length).toBeLessThanOrEqual(limit);
    calls.push(...response.body.calls);
    cursor = response.body.nextCursor;
  } while (cursor);
  return calls;
}

test("GET /calls?status=awaiting_confirmation - every waiting call across agents, oldest first, with names, deadline and redacted arguments", async () => {
  const roleA = await createRole(request, { name: unique("reviewer"), toolGroups: [group] });
  const roleB = await createRole(request, { name: unique("operator"), toolGroups: [group] });
  const agents = [await createAgent(request, roleA.id, { name: unique("alice") }), await createAgent(request, roleB.id), await createAgent(request, roleB.id)];
  const ids: string[] = [];
  // Back to back, most of them within one second: the queue is oldest first to the call, not to the second.
  for (let i = 0; i < 9; i++) ids.push(await waitingCall(agents[i % 3]!, names.guarded, { n: i, apiKey: "sk-live-0123456789" }));
  const queue = await wholeQueue(2);
  expect(queue.map((call) => call.callId)).toEqual(ids);
  const first = queue[0];
  expect(first).toMatchObject({
    callId: ids[0],
    agentId: agents[0]!.agent.id,
    agentName: agents[0]!.agent.name,
    roleId: roleA.id,
    roleName: roleA.name,
    tool: names.guarded,
    group,
    status: "awaiting_confirmation",
    arguments: { n: 0, apiKey: "[REDACTED]" },
  });
  expect(Date.parse(first.deadline) - Date.parse(first.startedAt)).toBe(toolgate.config.confirmationTimeoutMs);
  expect(JSON.stringify(queue)).not.toContain("sk-live");
  const deadlines = queue.map((call) => Date.parse(call.deadline));
  expect([...deadlines].sort((a, b) => a - b)).toEqual(deadlines);

  expect((await request("POST", `/calls/${ids[4]}/deny`)).status).toBe(200);
  expect((await wholeQueue(100)).map((call) => call.callId)).toEqual(ids.filter((id) => id !== ids[4]));
});

test("GET /calls - the queue needs the admin, status=awaiting_confirmation and a cursor it handed out", async () => {
  const role = await createRole(request, { name: unique("asker"), toolGroups: [group] });
  const agent = await createAgent(request, role.id);
  expect((await request("GET", "/calls?status=awaiting_confirmation", { token: agent.token })).status).toBe(403);
  for (const query of ["", "?status=completed", "?status=awaiting_confirmation&limit=0", "?status=awaiting_confirmation&limit=101", "?status=awaiting_confirmation&sort=new"]) {
    const response = await request("GET", `/calls${query}`);
    expect(response.status, query).toBe(400);
    expect(response.body.error, query).toBe("invalid_query");
  }
  const bad = await request("GET", "/calls?status=awaiting_confirmation&cursor=bm90LWEtY3Vyc29y");
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe("invalid_cursor");
});

test("GET /agents/:id/calls?status=&tool= - the agent's calls of a status and/or a tool, newest first, paged", async () => {
  const role = await createRole(request, { name: unique("filtered"), toolGroups: [group] });
  const agent = await createAgent(request, role.id);
  const guarded = [await waitingCall(agent, names.guarded, { i: 1 }), await waitingCall(agent, names.guarded, { i: 2 }), await waitingCall(agent, names.guarded, { i: 3 })];
  const other = await waitingCall(agent, names.other);
  expect((await request("POST", `/calls/${guarded[1]}/deny`)).status).toBe(200);
  const free = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: names.free, arguments: {} } });
  expect(free.body.callId, JSON.stringify(free.body)).toBeDefined(); // nothing listens at the executor's address: the call fails

  const ids = async (query: string, token?: string) => {
    const found: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await request("GET", `/agents/${agent.agent.id}/calls?${query}&limit=1${cursor ? `&cursor=${cursor}` : ""}`, token ? { token } : {});
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      found.push(...response.body.calls.map((call: { callId: string }) => call.callId));
      cursor = response.body.nextCursor;
    } while (cursor);
    return found;
  };
  expect(await ids("status=awaiting_confirmation")).toEqual([other, guarded[2], guarded[0]]);
  expect(await ids(`tool=${names.guarded}`)).toEqual([guarded[2], guarded[1], guarded[0]]);
  expect(await ids(`tool=${names.guarded}&status=awaiting_confirmation`, agent.token)).toEqual([guarded[2], guarded[0]]);
  expect(await ids(`tool=${names.guarded}&status=denied`)).toEqual([guarded[1]]);
  expect(await ids(`status=${(await request("GET", `/agents/${agent.agent.id}/calls/${free.body.callId}`)).body.status}`)).toEqual([free.body.callId]);
  expect(await ids(`tool=${names.free}&status=completed`)).toEqual([]);

  const unknown = await request("GET", `/agents/${agent.agent.id}/calls?status=finished`);
  expect(unknown.status).toBe(400);
  expect(unknown.body.error).toBe("invalid_query");
  const page = await request("GET", `/agents/${agent.agent.id}/calls?status=awaiting_confirmation&limit=1`);
  const elsewhere = await request("GET", `/agents/${agent.agent.id}/calls?status=denied&cursor=${page.body.nextCursor}`);
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body.error).toBe("invalid_cursor");
});
