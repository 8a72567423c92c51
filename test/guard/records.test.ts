import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, allCalls, callTool, guarded, httpGroup, policyTool, readCall, unique } from "./helpers";
import type { Guarded } from "./helpers";

let g: Guarded;
const KIB = 1024;
const BIG = "y".repeat(40 * KIB);
const names = { big: unique("big"), slow: unique("slow"), plain: unique("plain") };

beforeAll(async () => {
  g = await guarded();
  g.executor.respond(({ body }) => {
    if (body?.tool === names.big) return { body: { content: BIG, type: "text", metadata: { pages: 9 } } };
    if (body?.tool === names.slow) return { delayMs: 600, body: { content: "slow done" } };
    return { body: { content: JSON.stringify(body?.arguments), type: "json" } };
  });
});

afterAll(async () => {
  await g?.close();
});

async function agentWith(...tools: unknown[]) {
  const group = await httpGroup(g.request, g.executor, tools);
  return agentOn(g.request, [group]);
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** Polls the record until its status is one of the wanted ones; returns every status seen, in order. */
async function watch(agentId: string, callId: () => string | undefined, until: string[], timeoutMs = 5_000) {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const id = callId();
    if (id) {
      const response = await g.request("GET", `/agents/${agentId}/calls/${id}`);
      if (response.status === 200 && seen.at(-1) !== response.body.status) seen.push(response.body.status);
      if (until.includes(response.body?.status)) return seen;
    }
    await new Promise((done) => setTimeout(done, 20));
  }
  return seen;
}

test("call record - an http call is running while the executor works, then completed with timing", async () => {
  const caller = await agentWith(policyTool(names.slow));
  const pending = callTool(g.request, caller, names.slow, { step: 1 });
  let callId: string | undefined;
  const seen = watch(caller.agent.id, () => callId ?? (callId = (g.executor.requestsFor(names.slow).find((r) => r.body.agentId === caller.agent.id)?.body.callId as string | undefined)), ["completed"]);
  const response = await pending;
  expect(response.status).toBe(200);
  callId = response.body.callId;
  expect(await seen).toEqual(["running", "completed"]);
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record).toMatchObject({
    callId: response.body.callId,
    agentId: caller.agent.id,
    roleId: caller.role.id,
    tool: names.slow,
    group: expect.any(String),
    status: "completed",
    arguments: { step: 1 },
    result: { content: "slow done", type: "text" },
  });
  expect(record.durationMs).toBeGreaterThanOrEqual(500);
  expect(Date.parse(record.finishedAt)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
  expect(record).not.toHaveProperty("error");
});

test("call record - a confirmed call goes awaiting_confirmation, running, completed", async () => {
  const name = unique("slow_dangerous");
  const caller = await agentWith(policyTool(name, { dangerous: true }));
  g.executor.respond(({ body }) => {
    if (body?.tool === names.big) return { body: { content: BIG, type: "text", metadata: { pages: 9 } } };
    if (body?.tool === names.slow || body?.tool === name) return { delayMs: 600, body: { content: "slow done" } };
    return { body: { content: JSON.stringify(body?.arguments), type: "json" } };
  });
  const { body } = await callTool(g.request, caller, name, {});
  expect((await readCall(g.request, caller.agent.id, body.callId)).status).toBe("awaiting_confirmation");
  const approving = g.request("POST", `/calls/${body.callId}/approve`);
  const seen = await watch(caller.agent.id, () => body.callId, ["completed"]);
  expect((await approving).status).toBe(200);
  expect(seen).toEqual(["awaiting_confirmation", "running", "completed"].slice(seen[0] === "running" ? 1 : 0));
  expect(seen).toContain("running");
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({ status: "completed", approvedBy: "admin", durationMs: expect.any(Number) });
});

test("call record - a client call goes authorized, then completed when the runtime reports", async () => {
  const caller = await agentOn(g.request, ["workspace"]);
  const { body } = await callTool(g.request, caller, "write_file", { path: "a.txt", content: "hi" });
  expect(await readCall(g.request, caller.agent.id, body.callId)).toMatchObject({ status: "authorized", deadline: expect.any(String) });
  await g.request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content: "wrote 2 bytes" } });
  const record = await readCall(g.request, caller.agent.id, body.callId);
  expect(record).toMatchObject({ status: "completed", durationMs: expect.any(Number), finishedAt: expect.any(String) });
  expect(record).not.toHaveProperty("deadline");
});

test("call record - a refused call has an error, finishedAt and durationMs, and no result", async () => {
  const caller = await agentWith(policyTool(unique("t")));
  const response = await callTool(g.request, caller, unique("ghost"), {});
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record).toMatchObject({ status: "refused", error: { code: "unknown_tool", message: expect.any(String) }, durationMs: expect.any(Number), finishedAt: expect.any(String) });
  expect(record).not.toHaveProperty("result");
});

test("call record - secret-looking argument keys are stored as [REDACTED] at any depth, but the executor gets the real values", async () => {
  const name = unique("login");
  const caller = await agentWith(policyTool(name));
  const args = {
    user: "ann",
    password: "SEKRIT-p1",
    Token: "SEKRIT-t1",
    client_secret: "SEKRIT-s1",
    api_key: "SEKRIT-k1",
    apiKey: "SEKRIT-k2",
    AUTHORIZATION: "Bearer SEKRIT-x",
    headers: { Authorization: "Bearer SEKRIT-y", accept: "json" },
    accounts: [{ name: "b", PassWord: "SEKRIT-p2" }],
  };
  const response = await callTool(g.request, caller, name, args);
  expect(response.status).toBe(200);
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record.arguments).toEqual({
    user: "ann",
    password: "[REDACTED]",
    Token: "[REDACTED]",
    client_secret: "[REDACTED]",
    api_key: "[REDACTED]",
    apiKey: "[REDACTED]",
    AUTHORIZATION: "[REDACTED]",
    headers: { Authorization: "[REDACTED]", accept: "json" },
    accounts: [{ name: "b", PassWord: "[REDACTED]" }],
  });
  const listed = await allCalls(g.request, caller.agent.id);
  expect(JSON.stringify(listed.map((call) => call.arguments))).not.toMatch(/SEKRIT/);
  expect(g.executor.requestsFor(name)[0]!.body.arguments).toEqual(args);
});

test("call record - refused and awaiting calls are redacted too", async () => {
  const name = unique("danger");
  const caller = await agentWith(policyTool(name, { dangerous: true }));
  const queued = await callTool(g.request, caller, name, { password: "p1" });
  const refused = await callTool(g.request, caller, unique("ghost"), { secret: "s1" });
  expect((await readCall(g.request, caller.agent.id, queued.body.callId)).arguments).toEqual({ password: "[REDACTED]" });
  expect((await readCall(g.request, caller.agent.id, refused.body.callId)).arguments).toEqual({ secret: "[REDACTED]" });
  await g.request("POST", `/calls/${queued.body.callId}/approve`);
  expect(g.executor.requestsFor(name)[0]!.body.arguments).toEqual({ password: "p1" });
  expect((await readCall(g.request, caller.agent.id, queued.body.callId)).arguments).toEqual({ password: "[REDACTED]" });
});

test("call record - a result over 16 KiB is stored truncated with truncated: true, while the caller gets it whole", async () => {
  const caller = await agentWith(policyTool(names.big));
  const response = await callTool(g.request, caller, names.big, {});
  expect(response.status).toBe(200);
  expect(response.body.result.content).toBe(BIG);
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record.status).toBe("completed");
  expect(record.result.truncated).toBe(true);
  expect(record.result.type).toBe("text");
  expect(BIG.startsWith(record.result.content)).toBe(true);
  expect(record.result.content.length).toBeGreaterThan(15 * KIB);
  expect(bytes(record.result)).toBeLessThanOrEqual(16 * KIB);
});

test("call record - a small result is stored whole, without truncated", async () => {
  const caller = await agentWith(policyTool(names.plain));
  const response = await callTool(g.request, caller, names.plain, { a: 1 });
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record.result).toEqual({ content: '{"a":1}', type: "json" });
});

test("call record - a client-reported result over 16 KiB is truncated too, even with escaping-heavy content", async () => {
  const caller = await agentOn(g.request, ["workspace"]);
  const { body } = await callTool(g.request, caller, "read_file", { path: "big.txt" });
  const content = '"\n\\'.repeat(10 * KIB);
  const reported = await g.request("POST", `/agents/${caller.agent.id}/calls/${body.callId}/result`, { token: caller.token, body: { content } });
  expect(reported.status).toBe(200);
  const record = await readCall(g.request, caller.agent.id, body.callId);
  expect(record.result.truncated).toBe(true);
  expect(content.startsWith(record.result.content)).toBe(true);
  expect(bytes(record.result)).toBeLessThanOrEqual(16 * KIB);
});

test("call record - arguments over 16 KiB are stored cut short and flagged argumentsTruncated", async () => {
  const name = unique("bulk");
  const caller = await agentWith(policyTool(name));
  const response = await callTool(g.request, caller, name, { text: "z".repeat(20 * KIB) });
  expect(response.status).toBe(200);
  const record = await readCall(g.request, caller.agent.id, response.body.callId);
  expect(record.argumentsTruncated).toBe(true);
  expect(Buffer.byteLength(String(record.arguments), "utf8")).toBeLessThanOrEqual(16 * KIB);
  expect(g.executor.requestsFor(name)[0]!.body.arguments.text).toHaveLength(20 * KIB);
});

test("GET /agents/:id/calls - pages through history newest first with limit and cursor", async () => {
  const name = unique("paged");
  const caller = await agentWith(policyTool(name));
  const callIds: string[] = [];
  for (let i = 0; i < 7; i++) {
    const response = await callTool(g.request, caller, name, { i });
    callIds.push(response.body.callId);
    await new Promise((done) => setTimeout(done, 3));
  }
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const response = await g.request("GET", `/agents/${caller.agent.id}/calls?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token: caller.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    pages.push(response.body.calls.map((c: { callId: string }) => c.callId));
    cursor = response.body.nextCursor;
  } while (cursor && pages.length < 10);
  expect(pages.map((p) => p.length).slice(0, 3)).toEqual([3, 3, 1]);
  expect(pages.flat()).toEqual([...callIds].reverse());
});

test("GET /agents/:id/calls - defaults to 20, caps at 100 and refuses bad queries", async () => {
  const name = unique("many");
  const caller = await agentWith(policyTool(name));
  await Promise.all(Array.from({ length: 22 }, (_, i) => callTool(g.request, caller, name, { i })));
  const first = await g.request("GET", `/agents/${caller.agent.id}/calls`);
  expect(first.body.calls).toHaveLength(20);
  expect(first.body.nextCursor).toEqual(expect.any(String));
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls?limit=100`)).body.calls).toHaveLength(22);
  for (const query of ["limit=0", "limit=101", "limit=abc", "cursor=garbage", "other=1"]) {
    const response = await g.request("GET", `/agents/${caller.agent.id}/calls?${query}`);
    expect(response.status, query).toBe(400);
  }
});

test("GET /agents/:id/calls - an agent reads its own history only; the admin reads anyone's", async () => {
  const name = unique("own");
  const caller = await agentWith(policyTool(name));
  const other = await agentWith(policyTool(unique("other")));
  const { body } = await callTool(g.request, caller, name, {});
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls`, { token: caller.token })).body.calls).toHaveLength(1);
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls`, { token: other.token })).status).toBe(403);
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls/${body.callId}`, { token: other.token })).status).toBe(403);
  expect((await g.request("GET", `/agents/${other.agent.id}/calls/${body.callId}`, { token: other.token })).status).toBe(404);
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls/${body.callId}`)).status).toBe(200);
  expect((await g.request("GET", `/agents/${caller.agent.id}/calls`, { token: null })).status).toBe(401);
});
