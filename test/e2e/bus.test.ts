import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { APPROVALS_PATTERN, AwaitingConfirmation, CallSettled, AgentSpawned, AgentTerminated, GroupChanged, RoleChanged, TOOLGATE_EVENTS_PATTERN } from "@toolgate/core/events";
import { startExecutor } from "../support/executor";
import type { Executor, ExecutorRequest } from "../support/executor";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

let dataDir: string;
let stack: LocalProcess;
let tools: Executor;
let webhook: Executor;
let approvalsAnswered = 0;

const SECRET_ARGUMENT = "do-not-leak-7f3a";
const TASK = "Summarise the incident report and send the summary to the root agent.";

const http = (method: string, path: string, token: string, body?: unknown) => stack.request(method, path, token, body);

/** The events a webhook received at a path, as EventBridge envelopes. */
const received = (path: string) => webhook.requests.filter((request) => request.path === path).map((request) => request.body);
const ofType = (path: string, type: string) => received(path).filter((event) => event["detail-type"] === type);

async function eventually<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} did not arrive within ${ms} ms; the webhook received: ${JSON.stringify(webhook.requests.map((r: ExecutorRequest) => [r.path, r.body?.["detail-type"]]))}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "toolgate-bus-e2e-"));
  tools = await startExecutor(({ body }) => ({ body: { content: `${body?.tool} ran`, type: "text" } }));
  // The approvals hook fails its first delivery: the local bus retries it, as EventBridge would.
  webhook = await startExecutor(({ path }) => (path === "/approvals" && approvalsAnswered++ === 0 ? { status: 503, body: { error: "busy" } } : { status: 204 }));
  const rules = [
    { name: "Approvals", pattern: APPROVALS_PATTERN, webhook: `${webhook.url}/approvals` },
    { name: "Everything", pattern: TOOLGATE_EVENTS_PATTERN, webhook: `${webhook.url}/all` },
  ];
  stack = await startLocalProcess(dataDir, { TOOLGATE_EVENT_RULES: JSON.stringify(rules) });
}, 90_000);

afterAll(async () => {
  await stack?.stop("SIGTERM");
  await Promise.all([tools?.close(), webhook?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

test("bus - a guarded call that needs approval reaches the approvals webhook (retried once) and call.settled follows, with no arguments in either", async () => {
  const group = await http("PUT", "/groups/ops", stack.adminToken, {
    description: "Operations tools",
    executor: { type: "http", url: `${tools.url}/ops` },
    tools: [
      {
        type: "function",
        function: { name: "delete_server", description: "Delete a server.", parameters: { type: "object", properties: { target: { type: "string" } } } },
        "x-toolgate": { dangerous: true },
      },
    ],
  });
  expect(group.status).toBe(201);
  const registered = await eventually(() => ofType("/all", "group.changed").find((e) => e.detail.groupId === "ops"), "group.changed for ops");
  expect(registered).toMatchObject({ source: "toolgate", detail: { groupId: "ops", change: "registered", source: "api", tools: ["delete_server"] } });
  expect(GroupChanged.parse(registered.detail).catalogVersion).toBeGreaterThan(0);

  const role = await http("POST", "/roles", stack.adminToken, { name: "operator", rolePrompt: "Run the servers.", toolGroups: ["ops"] });
  const created = await http("POST", "/agents", stack.adminToken, { roleId: role.body.id, name: "op-1" });
  const { agent, token } = created.body;
  const asked = await http("POST", `/agents/${agent.id}/calls`, token, { tool: "delete_server", arguments: { target: SECRET_ARGUMENT } });
  expect(asked.status).toBe(202);

  // The first delivery was answered 503; the second, the bus's retry, was accepted.
  const [failed, approval] = await eventually(() => {
    const deliveries = ofType("/approvals", "call.awaiting_confirmation");
    return deliveries.length >= 2 ? deliveries : undefined;
  }, "the retried call.awaiting_confirmation at the approvals hook");
  expect(approval.id).toBe(failed.id);
  const waiting = AwaitingConfirmation.parse(approval.detail);
  expect(waiting).toMatchObject({ callId: asked.body.callId, agentId: agent.id, roleId: role.body.id, tool: "delete_server", group: "ops" });
  expect(waiting.approve).toBe(`/calls/${asked.body.callId}/approve`);
  expect(received("/approvals").map((event) => event["detail-type"])).toEqual(["call.awaiting_confirmation", "call.awaiting_confirmation"]);

  const approved = await http("POST", waiting.approve, stack.adminToken);
  expect(approved.body).toMatchObject({ status: "completed" });
  const settled = await eventually(() => ofType("/all", "call.settled").find((e) => e.detail.callId === asked.body.callId), "call.settled");
  expect(CallSettled.parse(settled.detail)).toMatchObject({ callId: asked.body.callId, tool: "delete_server", status: "completed" });
  expect(settled.detail.durationMs).toBeGreaterThanOrEqual(0);

  const refused = await http("POST", `/agents/${agent.id}/calls`, token, { tool: "no_such_tool", arguments: { target: SECRET_ARGUMENT } });
  expect(refused.body.callId).toEqual(expect.any(String));
  const refusal = await eventually(() => ofType("/all", "call.settled").find((e) => e.detail.callId === refused.body.callId), "call.settled for a refusal");
  expect(refusal.detail).toMatchObject({ status: "refused", errorCode: refused.body.error });

  expect(JSON.stringify(webhook.requests.map((request) => request.body))).not.toContain(SECRET_ARGUMENT);
  expect(JSON.stringify(webhook.requests.map((request) => request.body))).not.toContain("delete_server ran");
});

test("bus - spawn_agent_with_task announces the agent with its task; terminating it, creating, updating and deleting a role and removing a group are announced", async () => {
  const role = await http("POST", "/roles", stack.adminToken, { name: "analyst", rolePrompt: "Analyse.", toolGroups: ["ops"] });
  expect(role.status).toBe(201);
  const roleCreated = await eventually(() => ofType("/all", "role.changed").find((e) => e.detail.roleId === role.body.id), "role.changed created");
  expect(RoleChanged.parse(roleCreated.detail)).toMatchObject({ change: "created", name: "analyst", version: 1, toolGroups: ["ops"] });

  const patched = await http("PATCH", `/roles/${role.body.id}`, stack.adminToken, { rolePrompt: "Analyse carefully." });
  expect(patched.status).toBe(200);
  const roleUpdated = await eventually(() => ofType("/all", "role.changed").find((e) => e.detail.roleId === role.body.id && e.detail.change === "updated"), "role.changed updated");
  expect(roleUpdated.detail.version).toBe(2);

  const root = await http("POST", "/agents/root/token", stack.adminToken);
  expect(root.status).toBe(201);
  const spawned = await http("POST", "/agents/root/calls", root.body.token, { tool: "spawn_agent_with_task", arguments: { roleId: role.body.id, task: TASK, name: "analyst-1" } });
  expect(spawned.status).toBe(200);
  const agentId = JSON.parse(spawned.body.result.content).agentId;
  const announced = await eventually(() => ofType("/all", "agent.spawned").find((e) => e.detail.agentId === agentId), "agent.spawned");
  expect(AgentSpawned.parse(announced.detail)).toMatchObject({ agentId, roleId: role.body.id, name: "analyst-1", createdBy: "root", task: TASK });
  const messages = await http("GET", `/agents/${agentId}/messages`, stack.adminToken);
  expect(messages.body.messages.map((message: any) => message.messageId)).toContain(announced.detail.messageId);

  expect((await http("DELETE", `/agents/${agentId}`, stack.adminToken)).status).toBe(200);
  const terminated = await eventually(() => ofType("/all", "agent.terminated").find((e) => e.detail.agentId === agentId), "agent.terminated");
  expect(AgentTerminated.parse(terminated.detail)).toMatchObject({ agentId, roleId: role.body.id });

  expect((await http("DELETE", `/roles/${role.body.id}`, stack.adminToken)).status).toBe(204);
  const roleDeleted = await eventually(() => ofType("/all", "role.changed").find((e) => e.detail.roleId === role.body.id && e.detail.change === "deleted"), "role.changed deleted");
  expect(roleDeleted.detail).toMatchObject({ name: "analyst", version: 2 });

  expect((await http("DELETE", "/groups/ops", stack.adminToken)).status).toBe(204);
  const removed = await eventually(() => ofType("/all", "group.changed").find((e) => e.detail.groupId === "ops" && e.detail.change === "unregistered"), "group.changed unregistered");
  expect(removed.detail).toMatchObject({ source: "api", tools: [] });
  expect(received("/all").every((event) => event.source === "toolgate")).toBe(true);
});
