import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { slowly, startUpstreamMcp } from "../../../../test/support/upstream-mcp";
import type { UpstreamMcp } from "../../../../test/support/upstream-mcp";
import { startConformanceUpstream } from "../../../../test/support/conformance-upstream";
import { setTimeout as sleep } from "node:timers/promises";
import { CallSigner, environmentSecrets, NotAdmitted, run } from "./index";
import type { CallRelay, ExecutorCall } from "./index";
import { closeMcpConnections } from "./mcp";
import type { McpExecutor } from "./schema";

const SECRET = "ghp_unit-secret-0123456789";
const secrets = environmentSecrets({ TOOLGATE_SECRET_UNIT_TOKEN: SECRET });
const signer = new CallSigner("unit-signing-key-0123456789-0123456789");
let upstream: UpstreamMcp;

beforeAll(async () => {
  upstream = await startUpstreamMcp({ tools: [] });
});

afterAll(async () => {
  await closeMcpConnections();
  await upstream.close();
});

const call = (tool: string, args: Record<string, unknown> = {}): ExecutorCall => ({ callId: "call_1", tool, agentId: "agt_1", roleId: "rol_1", arguments: args });
const mcp = (extra: Partial<McpExecutor> = {}): McpExecutor => ({ type: "mcp", url: upstream.url, ...extra });
/** Connections made: a 2026-07-28 client's handshake is server/discover, a 2025 client's initialize. */
const connections = () => upstream.requests.filter((request) => request.rpc.includes("server/discover") || request.rpc.includes("initialize")).length;

test("run - an mcp executor forwards the call under the upstream's name and joins its text content", async () => {
  upstream.answer(() => ({ content: [{ type: "text", text: "first" }, { type: "text", text: "second" }] }));
  const result = await run(mcp({ toolPrefix: "gh" }), call("gh_get_me", { who: "me" }), { timeoutMs: 5_000, secrets, signer });
  expect(result).toMatchObject({ content: "first\nsecond", type: "text" });
  expect(upstream.calls.at(-1)).toMatchObject({ name: "get_me", arguments: { who: "me" } });
});

test("run - structuredContent is a json result; isError is an error result, its structuredContent left to the whole answer", async () => {
  upstream.answer(() => ({ content: [{ type: "text", text: "{}" }], structuredContent: { stars: 42 } }));
  expect(await run(mcp(), call("stars"), { timeoutMs: 5_000, secrets, signer })).toMatchObject({ content: '{"stars":42}', type: "json" });
  upstream.answer(() => ({ content: [{ type: "text", text: "Not Found" }], structuredContent: { status: 404 }, isError: true }));
  const failed = await run(mcp(), call("stars"), { timeoutMs: 5_000, secrets, signer });
  expect(failed).toMatchObject({ content: "Not Found", type: "error", mcpResult: { structuredContent: { status: 404 }, isError: true } });
});

const EVERY_BLOCK: CallToolResult = {
  content: [
    { type: "text", text: "Here:", annotations: { audience: ["user"], priority: 0.5 }, _meta: { "example.com/origin": "search" } },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///reports/q3.pdf", name: "q3.pdf", title: "Q3 report", mimeType: "application/pdf", size: 1234 },
    { type: "resource", resource: { uri: "test://notes", mimeType: "text/plain", text: "a note" } },
    { type: "resource", resource: { uri: "test://bytes", mimeType: "application/octet-stream", blob: "AAECAw==" } },
  ],
  structuredContent: { found: 3 },
  _meta: { "example.com/trace": "t-1", tokens: 12 },
};

test("run - the upstream's answer is carried whole: every kind of block, structuredContent and _meta; the text renders what is not text", async () => {
  upstream.answer(() => EVERY_BLOCK);
  const result = await run(mcp(), call("report"), { timeoutMs: 5_000, secrets, signer });
  expect(result.mcpResult).toEqual(EVERY_BLOCK);
  expect(result).toMatchObject({ content: '{"found":3}', type: "json" });
  upstream.answer(() => ({ ...EVERY_BLOCK, structuredContent: undefined }));
  expect((await run(mcp(), call("report"), { timeoutMs: 5_000, secrets, signer })).content).toBe(
    "Here:\n[image image/png]\n[audio audio/wav]\n[resource file:///reports/q3.pdf]\na note\n[resource test://bytes]",
  );
});

test("run - a secret header echoed anywhere in the whole answer is scrubbed there too, and nothing else in it changes", async () => {
  upstream.answer((received) => ({
    content: [{ type: "resource", resource: { uri: `test://echo?auth=${received.headers.authorization}`, text: "ok" } }],
    structuredContent: { token: "not a secret of this call", echoed: received.headers.authorization },
    _meta: { authorization: received.headers.authorization },
  }));
  const result = await run(mcp({ headers: { Authorization: { secret: "UNIT_TOKEN", prefix: "Bearer " } } }), call("echo"), { timeoutMs: 5_000, secrets, signer });
  expect(JSON.stringify(result)).not.toContain(SECRET);
  expect(result.mcpResult).toEqual({
    content: [{ type: "resource", resource: { uri: "test://echo?auth=Bearer [REDACTED]", text: "ok" } }],
    structuredContent: { token: "not a secret of this call", echoed: "Bearer [REDACTED]" },
    _meta: { authorization: "Bearer [REDACTED]" },
  });
});

test("run - an answer over 5 MiB is 502 executor_failed, read no further than the limit; the next call connects afresh and runs", async () => {
  upstream.answer(() => ({ content: [{ type: "text", text: "ok" }] }));
  await run(mcp(), call("warm"), { timeoutMs: 5_000, secrets, signer });
  const before = connections();
  upstream.answer(() => ({ content: [{ type: "text", text: "x".repeat(6 * 1024 * 1024) }] }));
  const error = await run(mcp(), call("dump"), { timeoutMs: 10_000, secrets, signer }).catch((failure: unknown) => failure);
  expect(error).toMatchObject({ code: "executor_failed", status: 502, message: expect.stringContaining("its answer was larger than 5 MiB") });
  upstream.answer(() => ({ content: [{ type: "text", text: "x".repeat(4 * 1024 * 1024) }] }));
  expect((await run(mcp(), call("dump"), { timeoutMs: 10_000, secrets, signer })).content).toHaveLength(4 * 1024 * 1024);
  expect(connections() - before).toBe(1);
});

test("run - calls to the same URL and headers reuse one connection", async () => {
  upstream.answer(() => ({ content: [{ type: "text", text: "ok" }] }));
  const executor = mcp({ headers: { "X-Reuse": "yes" } });
  const before = connections();
  for (let index = 0; index < 3; index++) await run(executor, call("ping"), { timeoutMs: 5_000, secrets, signer });
  expect(connections() - before).toBe(1);
});

/** An admission still being written: opened when the call is admitted, shut when it is not. */
function admission() {
  let open!: () => void;
  let shut!: (error: Error) => void;
  const admitted = new Promise<void>((resolve, reject) => ((open = resolve), (shut = reject)));
  return { admitted, open, shut };
}

test("run - a call made ready before its admission sends nothing until admitted, then runs its full timeout; one not admitted sends nothing at all", async () => {
  upstream.answer(() => ({ content: [{ type: "text", text: "ok" }] }));
  const executor = mcp({ headers: { "X-Admission": "yes" } });
  const before = upstream.requests.length;
  const admitted = admission();
  const running = run(executor, call("admitted"), { timeoutMs: 150, secrets, signer, admitted: admitted.admitted });
  await sleep(300);
  expect(upstream.requests.length).toBe(before);
  admitted.open();
  expect(await running).toMatchObject({ content: "ok" });
  expect(upstream.calls.at(-1)).toMatchObject({ name: "admitted" });

  const refused = admission();
  const dropped = run(executor, call("refused"), { timeoutMs: 5_000, secrets, signer, admitted: refused.admitted });
  await sleep(50);
  refused.shut(new NotAdmitted());
  await expect(dropped).rejects.toThrow();
  expect(upstream.calls.map((called) => called.name)).not.toContain("refused");
  expect(await run(executor, call("after"), { timeoutMs: 5_000, secrets, signer })).toMatchObject({ content: "ok" });
});

test("run - a secret header reaches the upstream, and the upstream echoing it back is scrubbed from the result", async () => {
  upstream.answer((received) => ({ content: [{ type: "text", text: `you sent ${received.headers.authorization}` }] }));
  const result = await run(mcp({ headers: { Authorization: { secret: "UNIT_TOKEN", prefix: "Bearer " } } }), call("whoami"), { timeoutMs: 5_000, secrets, signer });
  expect(upstream.calls.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
  expect(result.content).toBe("you sent Bearer [REDACTED]");
});

test("run - past the timeout the call is 504 tool_timeout, the upstream request is cancelled and the next call connects afresh", async () => {
  upstream.answer(async (received) => {
    await slowly(5_000, received.signal);
    return { content: [{ type: "text", text: "late" }] };
  });
  const executor = mcp({ headers: { "X-Timeout": "yes" } });
  const started = Date.now();
  await expect(run(executor, call("slow"), { timeoutMs: 200, secrets, signer })).rejects.toMatchObject({ status: 504, code: "tool_timeout" });
  expect(Date.now() - started).toBeLessThan(2_000);
  await expect.poll(() => upstream.cancelled.map((cancelled) => cancelled.name)).toContain("slow");
  upstream.answer(() => ({ content: [{ type: "text", text: "ok" }] }));
  const before = connections();
  await run(executor, call("after"), { timeoutMs: 5_000, secrets, signer });
  expect(connections() - before).toBe(1);
});

test("run - an unreachable MCP server is 502 executor_failed; a missing secret is 502 naming it", async () => {
  const closed = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  await expect(run({ type: "mcp", url: `http://127.0.0.1:${closed}/mcp` }, call("x"), { timeoutMs: 5_000, secrets, signer })).rejects.toMatchObject({
    status: 502,
    code: "executor_failed",
    message: expect.stringContaining(`127.0.0.1:${closed}`),
  });
  await expect(run(mcp({ headers: { Authorization: { secret: "ABSENT" } } }), call("x"), { timeoutMs: 5_000, secrets, signer })).rejects.toMatchObject({
    status: 502,
    code: "executor_failed",
    details: { secret: "ABSENT" },
  });
});

/** A relay recording what reaches the agent's client; it answers every question with the same form. */
function recordingRelay() {
  const logs: unknown[] = [];
  const requests: string[] = [];
  const relay: CallRelay = {
    wantsProgress: false,
    logLevel: "debug",
    takesInput: () => false,
    progress: async () => {},
    log: async (params) => void logs.push(params.data),
    request: async (method) => {
      requests.push(method);
      return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
    },
  };
  return { relay, logs, requests };
}

test("run - calls at once to one server each get what the server sends about them; what it asks on a connection's own stream reaches the call that connection serves, and between calls no one", async () => {
  let arrived = 0;
  let later = Promise.resolve("");
  let bothArrived!: () => void;
  const together = new Promise<void>((resolve) => (bothArrived = resolve));
  const conformance = await startConformanceUpstream([
    {
      tool: { name: "say", description: "Logs its word once both calls are running.", inputSchema: { type: "object", properties: { word: { type: "string" } } } },
      handler: async (args, ctx) => {
        if (++arrived === 2) bothArrived();
        await together;
        await ctx.mcpReq.log("info", `said ${String(args.word)}`);
        return { content: [{ type: "text", text: String(args.word) }] };
      },
    },
    {
      tool: { name: "ask_later", description: "Asks on the session's own stream once it has answered.", inputSchema: { type: "object", properties: {} } },
      handler: async (_args, _ctx, server) => {
        later = sleep(100).then(() =>
          server.elicitInput({ message: "Still there?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }, { timeout: 2_000 }).then(
            (answer) => `answered ${answer.action}`,
            (error: Error) => `refused: ${error.message}`,
          ),
        );
        return { content: [{ type: "text", text: "asked later" }] };
      },
    },
    {
      tool: { name: "ask_aside", description: "Asks on the session's own stream, about no call.", inputSchema: { type: "object", properties: {} } },
      handler: async (_args, _ctx, server) => {
        const asked = await server
          .elicitInput({ message: "Anyone?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }, { timeout: 300 })
          .then((answer) => `answered ${answer.action}`)
          .catch(() => "unanswered");
        return { content: [{ type: "text", text: asked }] };
      },
    },
  ]);
  try {
    const executor: McpExecutor = { type: "mcp", url: conformance.url };
    const [first, second] = [recordingRelay(), recordingRelay()];
    const results = await Promise.all([
      run(executor, call("say", { word: "one" }), { timeoutMs: 5_000, secrets, signer, people: { relay: first.relay } }),
      run(executor, call("say", { word: "two" }), { timeoutMs: 5_000, secrets, signer, people: { relay: second.relay } }),
    ]);
    expect(results.map((result) => result.content)).toEqual(["one", "two"]);
    expect(first.logs).toEqual(["said one"]);
    expect(second.logs).toEqual(["said two"]);

    const aside = recordingRelay();
    const result = await run(executor, call("ask_aside"), { timeoutMs: 5_000, secrets, signer, people: { relay: aside.relay } });
    expect(result.content).toBe("answered accept");
    expect(aside.requests).toEqual(["elicitation/create"]);

    const idle = recordingRelay();
    expect((await run(executor, call("ask_later"), { timeoutMs: 5_000, secrets, signer, people: { relay: idle.relay } })).content).toBe("asked later");
    expect(await later).toContain("toolgate cannot put this question to anyone");
    expect(idle.requests).toEqual([]);
  } finally {
    await conformance.close();
  }
});
