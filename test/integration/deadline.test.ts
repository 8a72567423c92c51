import { afterAll, beforeAll, expect, test } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let executor: Executor;
const events = new RecordingPublisher();
const names = { approval: unique("approval"), slow: unique("slow") };
const OPEN = { type: "object", properties: {}, additionalProperties: true };
const SLOW_TIMEOUT_MS = 20_000;
let group: string;

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate({ events }), startExecutor({ body: { content: "ran", type: "text" } })]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  group = unique("approvals");
  await putGroup(request, group, {
    description: "Tools that need an admin's approval.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      { ...tool(names.approval, "Needs approval.", OPEN), "x-toolgate": { requireConfirmation: true } },
      { ...tool(names.slow, "Needs approval and takes a while.", OPEN), "x-toolgate": { requireConfirmation: true, timeoutMs: SLOW_TIMEOUT_MS } },
    ],
  });
});

afterAll(async () => {
  await served?.close();
  await executor?.close();
});

const mcpClient = async (token: string, era: "modern" | "legacy") => {
  const client = new Client({ name: `deadline-${era}`, version: "1.0.0" }, era === "modern" ? { versionNegotiation: { mode: "auto" } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};

async function queued(callId: string) {
  const queue = await request("GET", "/calls?status=awaiting_confirmation&limit=100");
  return queue.body.calls.find((call: { callId: string }) => call.callId === callId);
}

test("deadline - a call waiting for approval has one deadline: its answer, its record, the approval queue and call.awaiting_confirmation give the same, over REST and over /mcp in both eras", async () => {
  const caller = await agentWithGroups(request, [group]);
  const rest = await request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: names.approval, arguments: { via: "rest" } } });
  expect(rest.status).toBe(202);
  const answered = [{ via: "rest", callId: rest.body.callId as string, deadline: rest.body.deadline as string, startedAt: rest.body.startedAt as string }];
  for (const era of ["modern", "legacy"] as const) {
    const client = await mcpClient(caller.token, era);
    const result: any = await client.callTool({ name: names.approval, arguments: { via: era } });
    expect(result._meta).toMatchObject({ code: "awaiting_confirmation" });
    expect(result.content[0].text).toContain(result._meta.deadline);
    answered.push({ via: era, callId: result._meta.callId, deadline: result._meta.deadline, startedAt: "" });
    await client.close();
  }

  for (const { via, callId, deadline, startedAt } of answered) {
    const record = (await request("GET", `/agents/${caller.agent.id}/calls/${callId}`)).body;
    expect(record.status, via).toBe("awaiting_confirmation");
    expect(deadline, via).toBe(record.deadline);
    if (startedAt) expect(startedAt, via).toBe(record.startedAt);
    expect(Date.parse(record.deadline) - Date.parse(record.startedAt), via).toBe(toolgate.config.confirmationTimeoutMs);
    expect((await queued(callId))?.deadline, via).toBe(record.deadline);
    const announced = events.of("call.awaiting_confirmation").filter((event) => event.callId === callId);
    expect(announced.map((event) => [event.startedAt, event.deadline]), via).toEqual([[record.startedAt, record.deadline]]);
  }
});

test("deadline - once approved a call waits for its tool, until the approval plus the tool's timeout; settled, it has no deadline left to show", async () => {
  const caller = await agentWithGroups(request, [group]);
  const asked = await request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: names.slow, arguments: {} } });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  executor.respond(async () => {
    await released;
    return { body: { content: "done", type: "text" } };
  });
  const approval = request("POST", `/calls/${asked.body.callId}/approve`);
  try {
    let running: any;
    for (const until = Date.now() + 10_000; running?.status !== "running" && Date.now() < until; await new Promise((done) => setTimeout(done, 20)))
      running = (await request("GET", `/agents/${caller.agent.id}/calls/${asked.body.callId}`)).body;
    expect(running.status).toBe("running");
    expect(Date.parse(running.deadline)).toBeGreaterThan(Date.parse(asked.body.deadline) - toolgate.config.confirmationTimeoutMs);
    expect(Date.parse(running.deadline) - Date.parse(running.decidedAt)).toBe(SLOW_TIMEOUT_MS + 5_000);
    expect(await queued(asked.body.callId)).toBeUndefined();
  } finally {
    release();
  }
  expect((await approval).status).toBe(200);
  executor.respond({ body: { content: "ran", type: "text" } });
  const settled = (await request("GET", `/agents/${caller.agent.id}/calls/${asked.body.callId}`)).body;
  expect(settled.status).toBe("completed");
  expect(settled).not.toHaveProperty("deadline");
});

test("deadline - a call nobody answered expires once its deadline passes, and the expired record keeps no deadline", async () => {
  const expiring = await testToolgate({ confirmationTimeoutMs: 4_000 });
  const expiringRequest = api(expiring);
  const local = unique("expiring");
  await putGroup(expiringRequest, local, {
    description: "Needs approval.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [{ ...tool(unique("ask"), "Asks.", OPEN), "x-toolgate": { requireConfirmation: true } }],
  });
  const caller = await agentWithGroups(expiringRequest, [local]);
  const toolName = (await expiringRequest("GET", `/groups/${local}`)).body.tools[0].function.name;
  const asked = await expiringRequest("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: toolName, arguments: {} } });
  expect((await expiring.cleanup(new Date(Date.parse(asked.body.deadline) - 1_000))).settled).toBe(0);
  expect((await expiring.cleanup(new Date(Date.parse(asked.body.deadline) + 1_000))).settled).toBe(1);
  const expired = (await expiringRequest("GET", `/agents/${caller.agent.id}/calls/${asked.body.callId}`)).body;
  expect(expired).toMatchObject({ status: "expired", error: { code: "confirmation_expired" } });
  expect(expired).not.toHaveProperty("deadline");
});
