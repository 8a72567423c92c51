import { ulid } from "ulid";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { Toolgate } from "@toolgate/core/toolgate";
import { startDynamoLocal } from "@toolgate/local/dynamo-local";
import type { DynamoLocal } from "@toolgate/local/dynamo-local";
import { freePort } from "@toolgate/local/free-port";
import { ensureTable } from "@toolgate/local/local-table";
import { startExecutor } from "../support/executor";
import { serveToolgate } from "../support/http-server";
import { startConformanceUpstream } from "../support/conformance-upstream";
import type { ExtraTool } from "../support/conformance-upstream";
import type { Executor } from "../support/executor";
import { ADMIN_TOKEN, SIGNING_KEY, api, tool } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { createAgent, createRole, putGroup, sleep, unique } from "./helpers";

/**
 * Real faults on a DynamoDB Local of this file's own: SIGSTOP freezes the java process (the kernel still
 * accepts connections, nothing answers them), SIGCONT resumes it; a closed port stands in for a store that is down.
 */

let dynamo: DynamoLocal;
let toolgate: Toolgate;
let request: Api;
const frozen = new Set<number>();

const freeze = () => {
  frozen.add(dynamo.pid);
  process.kill(dynamo.pid, "SIGSTOP");
};
const thaw = () => {
  for (const pid of frozen) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // already gone
    }
  }
  frozen.clear();
};

/** The request and how long it took to be answered. */
async function timed(send: () => Promise<ApiResponse>): Promise<ApiResponse & { elapsedMs: number }> {
  const startedAt = Date.now();
  const response = await send();
  return { ...response, elapsedMs: Date.now() - startedAt };
}

function expectStoreUnavailable(response: ApiResponse, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(503);
  expect(response.body, what).toMatchObject({ error: "store_unavailable", message: expect.any(String), retryAfterSeconds: expect.any(Number) });
  expect(Number(response.headers.get("retry-after")), `${what}: Retry-After`).toBeGreaterThanOrEqual(1);
}

/** Polls /health until it answers the given status; returns the last response and how long it took. */
async function healthUntil(status: number, timeoutMs: number) {
  const startedAt = Date.now();
  for (;;) {
    const response = await request("GET", "/health", { token: null });
    const elapsedMs = Date.now() - startedAt;
    if (response.status === status || elapsedMs > timeoutMs) return { ...response, elapsedMs };
    await sleep(100);
  }
}

/** A group as given, a role on it and an agent in that role. */
async function agentOnGroup(group: Record<string, unknown>) {
  const groupId = unique("grp");
  await putGroup(request, groupId, group);
  const role = await createRole(request, { name: unique("role"), toolGroups: [groupId] });
  const { agent, token } = await createAgent(request, role.id);
  return { role, agent, token };
}

/** A group of one tool behind the given executor, a role on it and an agent in that role. */
async function agentWithTool(executor: Executor) {
  const toolName = unique("tool");
  const made = await agentOnGroup({ description: "A tool behind a local executor.", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(toolName)] });
  return { toolName, ...made };
}

/** The agent's 2026-07-28 MCP client on toolgate's /mcp, served for it alone; `close` ends both. */
async function mcpClientOf(token: string) {
  const served = await serveToolgate(toolgate);
  const client = new Client({ name: "faults", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  } catch (error) {
    await served.close();
    throw error;
  }
  const close = async () => {
    await client.close().catch(() => {});
    await served.close();
  };
  return { client, close };
}

beforeAll(async () => {
  dynamo = await startDynamoLocal({ log: () => {} });
  const table = `faults_${ulid()}`;
  // Set up with the default limits: a DynamoDB Local just started (its JIT cold, the machine busy) may take longer
  // than this file's 1 s to answer its first requests, which is not the fault under test.
  const setup = new Toolgate({ table, endpoint: dynamo.endpoint, adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY });
  await ensureTable(setup.db.client, table);
  await setup.ready();
  setup.db.client.destroy();
  toolgate = new Toolgate({ table, endpoint: dynamo.endpoint, adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY, requestTimeoutMs: 1000, maxAttempts: 2 });
  await toolgate.ready();
  request = api(toolgate);
});

afterEach(async () => {
  thaw();
  // Leave the store answering for the next test.
  if (toolgate) await healthUntil(200, 15_000);
});

afterAll(async () => {
  thaw();
  await dynamo?.stop();
});

describe("store faults", () => {
  test("faults - a hung store answers an admin read and a guarded call with 503 store_unavailable and Retry-After within 10 s", async () => {
    const executor = await startExecutor();
    try {
      const { toolName, role, agent, token } = await agentWithTool(executor);
      // Warm: the first guarded call of the process succeeds, so what follows fails on the store, not on a cold cache.
      const warm = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: toolName, arguments: {} } });
      expect(warm.status, JSON.stringify(warm.body)).toBe(200);

      freeze();
      const read = await timed(() => request("GET", `/roles/${role.id}`));
      expectStoreUnavailable(read, "GET /roles/:id on a hung store");
      expect(read.elapsedMs, "GET /roles/:id answered within 10 s").toBeLessThan(10_000);

      const call = await timed(() => request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: toolName, arguments: { n: 2 } } }));
      expectStoreUnavailable(call, "a guarded call on a hung store");
      expect(call.elapsedMs, "the guarded call answered within 10 s").toBeLessThan(10_000);
      expect(executor.requests, "nothing runs when its admission could not be written").toHaveLength(1);
      console.log(`hung store: GET /roles/:id 503 in ${read.elapsedMs} ms, guarded call 503 in ${call.elapsedMs} ms`);
    } finally {
      thaw();
      await executor.close();
    }
  }, 30_000);

  test("faults - /health answers 503 { ok: false, store: unavailable } on a hung store within ~3 s and 200 again after SIGCONT", async () => {
    const up = await request("GET", "/health", { token: null });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toEqual({ ok: true, store: "available" });

    freeze();
    const down = await healthUntil(503, 8_000);
    expect(down.status, JSON.stringify(down.body)).toBe(503);
    expect(down.body).toEqual({ ok: false, store: "unavailable" });
    // At most one remembered answer (1.5 s) plus one probe (2 s), with some slack.
    expect(down.elapsedMs, "/health noticed the hung store within ~3 s").toBeLessThan(4_000);

    thaw();
    const back = await healthUntil(200, 10_000);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual({ ok: true, store: "available" });
    console.log(`/health: 503 after ${down.elapsedMs} ms of a hung store, 200 again ${back.elapsedMs} ms after SIGCONT`);
  }, 30_000);

  test("faults - over /mcp, a store that hangs while the tool runs: the agent gets store_unavailable saying the tool ran, never the result the store could not record", async () => {
    const executor = await startExecutor();
    let connected: Awaited<ReturnType<typeof mcpClientOf>> | undefined;
    try {
      const { toolName, token } = await agentWithTool(executor);
      connected = await mcpClientOf(token);
      const { client } = connected;
      executor.respond({ status: 200, body: { content: "warm", type: "text" } });
      expect((await client.callTool({ name: toolName, arguments: { step: 0 } })).content).toEqual([{ type: "text", text: "warm" }]);
      executor.respond(() => {
        freeze();
        return { status: 200, body: { content: "done", type: "text" } };
      });
      const result = await client.callTool({ name: toolName, arguments: { step: 1 } });
      expect(result.isError, JSON.stringify(result)).toBe(true);
      expect(result._meta).toMatchObject({ code: "store_unavailable", callId: expect.stringMatching(/^call_/) });
      expect(JSON.stringify(result.content)).toContain("ran, but toolgate's database stopped answering before its outcome was recorded");
      expect(JSON.stringify(result.content)).not.toContain("done");
      expect(executor.requestsFor(toolName), "the tool ran once").toHaveLength(2);
    } finally {
      thaw();
      await connected?.close();
      await executor.close();
    }
  }, 30_000);

  test("faults - over /mcp, from an MCP module that reported progress on a streaming answer: a store that hangs as it answers still ends the call store_unavailable", async () => {
    const reportsThenHangsTheStore: ExtraTool = {
      tool: { name: "report_then_answer", description: "Reports progress, then answers.", inputSchema: { type: "object", properties: {} } },
      handler: async (_args, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        if (progressToken !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress: 1, total: 1 } });
        freeze();
        return { content: [{ type: "text", text: "done" }] };
      },
    };
    const upstream = await startConformanceUpstream([reportsThenHangsTheStore]);
    let connected: Awaited<ReturnType<typeof mcpClientOf>> | undefined;
    try {
      const { token } = await agentOnGroup({ description: "A module that reports progress.", executor: { type: "mcp", url: upstream.url } });
      connected = await mcpClientOf(token);
      const { client } = connected;
      const progress: number[] = [];
      const result = await client.callTool({ name: "report_then_answer", arguments: {} }, { onprogress: (update) => void progress.push(update.progress) });
      expect(progress).toEqual([1]);
      expect(result.isError, JSON.stringify(result)).toBe(true);
      expect(result._meta).toMatchObject({ code: "store_unavailable" });
      expect(JSON.stringify(result.content)).not.toContain("done");
    } finally {
      thaw();
      await connected?.close();
      await upstream.close();
    }
  }, 30_000);

  test("faults - a store that hangs while the tool runs: 503 store_unavailable (not 200), the call was recorded as running before the tool ran, the tool ran once", async () => {
    const executor = await startExecutor();
    try {
      const { toolName, agent, token } = await agentWithTool(executor);
      let recordWhileRunning: ApiResponse | undefined;
      executor.respond(async ({ body }) => {
        // The admission is in the store before the tool runs: read it back, then hang the store and answer.
        recordWhileRunning = await request("GET", `/agents/${agent.id}/calls/${body.callId}`);
        freeze();
        return { status: 200, body: { content: "done", type: "text" } };
      });

      const call = await timed(() => request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: toolName, arguments: { step: 1 } } }));
      expectStoreUnavailable(call, "a guarded call whose outcome could not be recorded");
      expect(call.elapsedMs, "answered within 10 s").toBeLessThan(10_000);
      expect(executor.requestsFor(toolName), "the tool ran exactly once").toHaveLength(1);
      const callId = executor.requestsFor(toolName)[0]!.body.callId as string;
      expect(callId).toMatch(/^call_/);
      expect(call.body, "the answer says the tool ran and names the call to look up instead of inviting a blind retry").toMatchObject({
        callId,
        toolRan: true,
        message: expect.stringContaining(`/calls/${callId}`),
      });
      expect(recordWhileRunning?.status, `the call was recorded before the tool ran: ${JSON.stringify(recordWhileRunning?.body)}`).toBe(200);
      expect(recordWhileRunning!.body).toMatchObject({ callId, agentId: agent.id, tool: toolName, status: "running" });

      executor.respond({ status: 200, body: { content: "ok", type: "text" } });
      thaw();
      await healthUntil(200, 10_000);
      const record = await request("GET", `/agents/${agent.id}/calls/${callId}`);
      expect(record.status, `the call that ran has a record: ${JSON.stringify(record.body)}`).toBe(200);
      // SIGSTOP leaves the abandoned outcome write in the socket buffer and DynamoDB Local applies it on SIGCONT,
      // as real DynamoDB may apply a write whose answer timed out: the record is "running" (later timed out by
      // cleanup) or "completed" with the executor's result; either way the tool did not run unrecorded.
      expect(["running", "completed"]).toContain(record.body.status);
      expect(record.body).toMatchObject({ callId, agentId: agent.id, tool: toolName });
      if (record.body.status === "completed") expect(record.body.result).toMatchObject({ content: "done" });
      expect(executor.requestsFor(toolName), "the tool ran exactly once").toHaveLength(1);
      console.log(`tool ran, store hung: 503 in ${call.elapsedMs} ms (body ${JSON.stringify(call.body)}); record ${callId} is "${record.body.status}" after SIGCONT`);
    } finally {
      thaw();
      await executor.close();
    }
  }, 30_000);

  const unreachableAt = (port: number) =>
    new Toolgate({
      table: `faults_down_${ulid()}`,
      endpoint: `http://127.0.0.1:${port}`,
      adminToken: ADMIN_TOKEN,
      signingKey: SIGNING_KEY,
      requestTimeoutMs: 1000,
      maxAttempts: 2,
    });

  test("faults - an unreachable store (nothing listening) answers every route with 503 store_unavailable, the first request included, and /health 503; never 500", async () => {
    const port = await freePort();
    const down = unreachableAt(port);
    const readyStartedAt = Date.now();
    await expect(down.ready()).rejects.toBeDefined();
    const readyMs = Date.now() - readyStartedAt;
    expect(readyMs, "ready() fails fast on a refused connection").toBeLessThan(5_000);

    // A fresh instance, so the very first request is the one that meets the store.
    const fresh = unreachableAt(port);
    const unreachable = api(fresh);
    const agentToken = await fresh.tokens.sign({ agentId: "agt_nobody", tokenVersion: 1, expiresAt: fresh.tokens.agentTokenExpiry(new Date().toISOString()) });
    const first = await timed(() => unreachable("GET", "/groups"));
    expectStoreUnavailable(first, "the first request (GET /groups)");
    expect(first.elapsedMs, "answered quickly").toBeLessThan(5_000);

    const requests: Array<[string, string, Parameters<Api>[2]]> = [
      ["GET", "/roles/role_nobody", {}],
      ["POST", "/roles", { body: { name: "nobody", rolePrompt: "Nothing." } }],
      ["GET", "/modules", {}],
      ["POST", "/agents", { body: { roleId: "role_nobody" } }],
      ["GET", "/agents/agt_nobody/tools", { token: agentToken }],
      ["POST", "/agents/agt_nobody/calls", { token: agentToken, body: { tool: "open_tab", arguments: {} } }],
      ["GET", "/groups", {}],
    ];
    const timings: string[] = [`GET /groups (first) ${first.elapsedMs} ms`];
    for (const [method, path, options] of requests) {
      const response = await timed(() => unreachable(method, path, options));
      expect(response.status, `${method} ${path} is never 500`).not.toBe(500);
      expectStoreUnavailable(response, `${method} ${path}`);
      expect(response.elapsedMs, `${method} ${path} answered quickly`).toBeLessThan(5_000);
      timings.push(`${method} ${path} ${response.elapsedMs} ms`);
    }

    const health = await timed(() => unreachable("GET", "/health", { token: null }));
    expect(health.status, JSON.stringify(health.body)).toBe(503);
    expect(health.body).toEqual({ ok: false, store: "unavailable" });
    expect(health.elapsedMs).toBeLessThan(5_000);
    timings.push(`GET /health ${health.elapsedMs} ms`);
    console.log(`unreachable store: ready() failed in ${readyMs} ms; ${timings.join(", ")}`);
  }, 30_000);
});
