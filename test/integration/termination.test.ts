import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { publishCallEvents, RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { readAgent, replaceAgent } from "../../packages/core/src/dynamo/agents";
import { Keys } from "../../packages/core/src/dynamo/keys";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { streamRecords } from "../support/stream";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let roleId: string;
const names = { approval: unique("approval"), runtime: unique("runtime"), free: unique("free") };
const OPEN = { type: "object", properties: {}, additionalProperties: true };

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor({ body: { content: "ran", type: "text" } })]);
  request = api(toolgate);
  const approvals = unique("approvals");
  const runtime = unique("runtime");
  await putGroup(request, approvals, {
    description: "Tools behind an HTTP executor; one needs an admin's approval.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [{ ...tool(names.approval, "Needs approval.", OPEN), "x-toolgate": { requireConfirmation: true } }, tool(names.free, "Runs at once.", OPEN)],
  });
  await putGroup(request, runtime, { description: "Run by the agent's runtime.", executor: { type: "client" }, tools: [tool(names.runtime, "Runs in the runtime.", OPEN)] });
  roleId = (await createRole(request, { name: unique("worker"), toolGroups: [approvals, runtime] })).id;
});

afterAll(() => executor?.close());

type Issued = Awaited<ReturnType<typeof createAgent>>;

const call = (agent: Issued, toolName: string, args: Record<string, unknown> = {}) =>
  request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: toolName, arguments: args } });

async function waiting(agent: Issued, toolName: string, args: Record<string, unknown> = {}) {
  const response = await call(agent, toolName, args);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  return response.body.callId as string;
}

const record = async (agent: Issued, callId: string) => (await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).body;

async function queueIds() {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await request("GET", `/calls?status=awaiting_confirmation&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    ids.push(...page.body.calls.map((queued: { callId: string }) => queued.callId));
    cursor = page.body.nextCursor;
  } while (cursor);
  return ids;
}

/** The agent terminated in the store the way a termination's own write leaves it, before it has ended any waiting call. */
async function terminatedWithoutItsCalls(agent: Issued) {
  const stored = (await readAgent(toolgate.db, agent.agent.id))!;
  expect((await replaceAgent(toolgate.db, stored, { ...stored.agent, status: "terminated", terminatedAt: new Date().toISOString() })).kind).toBe("ok");
}

const sealedArguments = async (callId: string) =>
  (await toolgate.db.doc.send(new GetCommand({ TableName: toolgate.db.table, Key: Keys.callRef(callId), ConsistentRead: true }))).Item?.sealed;

test("DELETE /agents/:id - the calls the agent left waiting (for an approval, for its runtime's result) end as cancelled, leave the queue and are announced as call.settled", async () => {
  const agent = await createAgent(request, roleId);
  const bystander = await createAgent(request, roleId);
  const awaiting = [await waiting(agent, names.approval, { n: 1, password: "hunter2" }), await waiting(agent, names.approval, { n: 2 })];
  const authorized = await waiting(agent, names.runtime, { path: "notes.md", apiKey: "sk-live-0123456789" });
  const done = await call(agent, names.free, { n: 3 });
  expect(done.status).toBe(200);
  const untouched = await waiting(bystander, names.approval, { n: 4 });
  expect(await sealedArguments(authorized)).toEqual(expect.any(String));
  expect(await queueIds()).toEqual(expect.arrayContaining([...awaiting, untouched]));

  const terminated = await request("DELETE", `/agents/${agent.agent.id}`);
  expect(terminated.status, JSON.stringify(terminated.body)).toBe(200);
  expect(terminated.body).toMatchObject({ id: agent.agent.id, status: "terminated", cancelledCalls: 3 });

  for (const callId of [...awaiting, authorized]) {
    const ended = await record(agent, callId);
    expect(ended).toMatchObject({ status: "cancelled", error: { code: "agent_terminated", message: expect.stringContaining("agent was terminated") }, finishedAt: expect.any(String) });
    expect(ended).not.toHaveProperty("deadline");
    expect(await sealedArguments(callId)).toBeUndefined();
  }
  expect((await record(agent, done.body.callId)).status).toBe("completed");
  const queue = await queueIds();
  expect(queue).toContain(untouched);
  for (const callId of awaiting) expect(queue).not.toContain(callId);
  expect((await record(bystander, untouched)).status).toBe("awaiting_confirmation");
  expect(executor.requestsFor(names.approval)).toHaveLength(0);

  const history = await request("GET", `/agents/${agent.agent.id}/calls?status=cancelled`);
  expect(history.body.calls.map((ended: { callId: string }) => ended.callId).sort()).toEqual([...awaiting, authorized].sort());

  const announced = new RecordingPublisher();
  await publishCallEvents(announced, await streamRecords(inject("dynamoEndpoint"), toolgate.db.table));
  const settled = announced.of("call.settled").filter((event) => event.agentId === agent.agent.id && event.status === "cancelled");
  expect(settled.map((event) => event.callId).sort()).toEqual([...awaiting, authorized].sort());
  for (const event of settled) expect(event).toMatchObject({ errorCode: "agent_terminated", finishedAt: expect.any(String) });
});

test("DELETE /agents/:id - an agent with more waiting calls than a page ends them all", async () => {
  const agent = await createAgent(request, roleId);
  const ids: string[] = [];
  for (let n = 0; n < 230; n++) ids.push(await waiting(agent, n % 5 === 0 ? names.runtime : names.approval, { n }));
  const terminated = await request("DELETE", `/agents/${agent.agent.id}`);
  expect(terminated.status, JSON.stringify(terminated.body)).toBe(200);
  expect(terminated.body.cancelledCalls).toBe(ids.length);
  const cancelled: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await request("GET", `/agents/${agent.agent.id}/calls?status=cancelled&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    cancelled.push(...page.body.calls.map((ended: { callId: string }) => ended.callId));
    cursor = page.body.nextCursor;
  } while (cursor);
  expect(cancelled.sort()).toEqual([...ids].sort());
  const queue = new Set(await queueIds());
  expect(ids.filter((callId) => queue.has(callId))).toEqual([]);
}, 60_000);

test("GET /calls?status=awaiting_confirmation - a call whose agent is terminated is not listed even before its termination has ended it, and approving it is 409", async () => {
  const agent = await createAgent(request, roleId);
  const callId = await waiting(agent, names.approval);
  expect(await queueIds()).toContain(callId);
  await terminatedWithoutItsCalls(agent);
  expect(await queueIds()).not.toContain(callId);
  const approved = await request("POST", `/calls/${callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(409);
  expect(approved.body).toMatchObject({ error: "agent_terminated", message: expect.stringContaining("was terminated") });
  expect(executor.requestsFor(names.approval)).toHaveLength(0);
});

test("DELETE /agents/:id - asked again for an agent whose termination stopped before ending its calls, it ends them and still answers 409 agent_terminated", async () => {
  const agent = await createAgent(request, roleId);
  const callId = await waiting(agent, names.approval);
  await terminatedWithoutItsCalls(agent);
  const again = await request("DELETE", `/agents/${agent.agent.id}`);
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ error: "agent_terminated", message: expect.stringContaining("already") });
  expect((await record(agent, callId)).status).toBe("cancelled");
});

test("POST /calls/:callId/approve racing DELETE /agents/:id - exactly one wins: the call runs once, or it is cancelled and the approval is 409 with a message", async () => {
  const outcomes = { ran: 0, cancelled: 0 };
  for (let round = 0; round < 12; round++) {
    const agent = await createAgent(request, roleId);
    const callId = await waiting(agent, names.approval, { round });
    const before = executor.requestsFor(names.approval).length;
    const [approved, terminated] = await Promise.all([request("POST", `/calls/${callId}/approve`), request("DELETE", `/agents/${agent.agent.id}`)]);
    expect(terminated.status, JSON.stringify(terminated.body)).toBe(200);
    const ended = await record(agent, callId);
    const runs = executor.requestsFor(names.approval).length - before;
    if (approved.status === 200) {
      expect(ended.status).toBe("completed");
      expect(runs).toBe(1);
      expect(terminated.body.cancelledCalls).toBe(0);
      outcomes.ran++;
    } else {
      expect(approved.status, JSON.stringify(approved.body)).toBe(409);
      expect(approved.body).toMatchObject({ error: "agent_terminated", message: expect.stringContaining(`"${agent.agent.id}" was terminated`) });
      expect(ended.status).toBe("cancelled");
      expect(runs).toBe(0);
      outcomes.cancelled++;
    }
  }
  expect(outcomes.ran + outcomes.cancelled).toBe(12);
}, 60_000);

test("terminate_agent - the native tool ends the calls its target left waiting too", async () => {
  const organiser = await createAgent(request, "root");
  const agent = await createAgent(request, roleId);
  const callId = await waiting(agent, names.approval);
  const terminated = await call(organiser, "terminate_agent", { agentId: agent.agent.id });
  expect(terminated.status, JSON.stringify(terminated.body)).toBe(200);
  expect(JSON.parse(terminated.body.result.content)).toMatchObject({ agentId: agent.agent.id, status: "terminated", cancelledCalls: 1 });
  expect((await record(agent, callId)).status).toBe("cancelled");
});
