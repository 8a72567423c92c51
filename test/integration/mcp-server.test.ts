import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as z from "zod";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, ADMIN_TOKEN, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let executor: Executor;
let ops: string;
let other: string;
let local: string;
let agent: Awaited<ReturnType<typeof agentWithGroups>>;

const names = { echo: unique("echo"), remove: unique("delete_server"), limited: unique("ping"), read: unique("read_log"), hidden: unique("hidden"), runtime: unique("open_file") };
const target = { type: "object", properties: { target: { type: "string" } }, required: ["target"] };

const modernClient = async (token: string) => {
  const client = new Client({ name: "test-modern", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};
const legacyClient = async (token: string) => {
  const client = new Client({ name: "test-legacy", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};
const v1Client = async (token: string) => {
  const client = new V1Client({ name: "test-v1", version: "1.0.0" });
  await client.connect(new V1Transport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([
    testToolgate({ mcp: { pageSize: 2 } }),
    startExecutor(({ body }) => ({ body: { content: `${body?.tool} ran on ${body?.arguments?.target}`, type: "text" } })),
  ]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  ops = unique("ops");
  other = unique("other");
  local = unique("local");
  await putGroup(request, ops, {
    description: "Operations.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [
      tool(names.echo, "Echo a target.", target),
      { ...tool(names.remove, "Delete a server.", target), "x-toolgate": { dangerous: true } },
      { ...tool(names.limited, "Ping a server.", target), "x-toolgate": { rateLimit: { perMinute: 1 } } },
      { ...tool(names.read, "Read a log.", target), "x-toolgate": { readOnly: true, idempotent: true, openWorld: false } },
    ],
  });
  await putGroup(request, other, { description: "Not this role's.", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(names.hidden, "Hidden.", target)] });
  await putGroup(request, local, { description: "Run by the agent.", executor: { type: "client" }, tools: [tool(names.runtime, "Open a file.", target)] });
  agent = await agentWithGroups(request, [ops, local]);
});

afterAll(async () => {
  await served?.close();
  await executor?.close();
});

/** One tools/list page as a 2025 client without the SDK asks for it (stateless, no session), its SSE answer parsed. */
async function rawList(token: string, cursor?: string): Promise<{ tools: any[]; nextCursor?: string }> {
  const response = await fetch(`${served.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: cursor ? { cursor } : {} }),
  });
  const text = await response.text();
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  const message = JSON.parse(data ? data.slice("data: ".length) : text);
  if (!message.result) throw new Error(`tools/list failed: ${text}`);
  return message.result;
}

/**
 * One request as a 2026-07-28 client sends it (the per-request envelope and the standard headers), for what the SDK's
 * client does not send: it has no Tasks support of its own and refuses a task answer to tools/call.
 */
async function modernRequest(token: string, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) {
  const response = await fetch(`${served.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "raw-modern-client", version: "1.0.0" },
        },
      },
    }),
  });
  return response.json();
}

/** Every tool a client lists, page after page (the v2 client walks pages itself; the v1 client returns one at a time). */
async function listed(client: { listTools: (params?: { cursor?: string }) => Promise<{ tools: Array<{ name: string }>; nextCursor?: string }> }) {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}

describe("toolgate as an MCP server", () => {
  test("/mcp - a 2026-07-28 client, a 2025 client and the v1 SDK client each list exactly the agent's tools (REST's list minus client-executed ones) and call one through the guard", async () => {
    const rest = await request("GET", `/agents/${agent.agent.id}/tools`, { token: agent.token });
    const expected = rest.body.tools.map((t: any) => t.function.name).filter((name: string) => name !== names.runtime).sort();
    expect(expected).toEqual([names.echo, names.remove, names.limited, names.read].sort());
    for (const connect of [modernClient, legacyClient, v1Client]) {
      const client = await connect(agent.token);
      expect(await listed(client), connect.name).toEqual(expected);
      const result: any = await client.callTool({ name: names.echo, arguments: { target: connect.name } });
      expect(result.isError ?? false, connect.name).toBe(false);
      expect(result.content, connect.name).toEqual([{ type: "text", text: `${names.echo} ran on ${connect.name}` }]);
      const record = await request("GET", `/agents/${agent.agent.id}/calls/${result._meta.callId}`, { token: agent.token });
      expect(record.body, connect.name).toMatchObject({ tool: names.echo, status: "completed", arguments: { target: connect.name } });
      await client.close();
    }
  });

  test("/mcp - the connection is modern for the v2 client in auto mode and legacy for the others", async () => {
    const modern = await modernClient(agent.token);
    const legacy = await legacyClient(agent.token);
    expect(modern.getProtocolEra()).toBe("modern");
    expect(legacy.getProtocolEra()).toBe("legacy");
    await Promise.all([modern.close(), legacy.close()]);
  });

  test("tools/list - annotations come from toolgate's policy, and an admin's override wins over what the module claimed", async () => {
    const annotationsNow = async () => {
      // A fresh client each time: a 2026-07-28 client may reuse a list for its time-to-live.
      const client = await modernClient(agent.token);
      const annotations = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations ?? {}]));
      await client.close();
      return annotations;
    };
    let annotations = await annotationsNow();
    expect(annotations[names.remove]).toMatchObject({ destructiveHint: true });
    expect(annotations[names.read]).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotations[names.echo]).toEqual({});
    try {
      const patched = await request("PATCH", `/tools/${names.read}/policy`, { body: { readOnly: false, dangerous: true } });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      annotations = await annotationsNow();
      expect(annotations[names.read]).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    } finally {
      await request("PATCH", `/tools/${names.read}/policy`, { body: { readOnly: null, dangerous: null } });
    }
  });

  test("tools/list - pages in a deterministic order with cursors bound to the agent and the catalog version", async () => {
    const first = await rawList(agent.token);
    expect(first.tools.length).toBe(2);
    const pages = [first];
    while (pages.at(-1)!.nextCursor) pages.push(await rawList(agent.token, pages.at(-1)!.nextCursor));
    expect(pages.length).toBe(2);
    const all = pages.flatMap((page) => page.tools.map((t: { name: string }) => t.name));
    expect(all).toEqual([...all].sort());
    const client = await modernClient(agent.token);
    expect(await listed(client)).toEqual(all);
    expect((await client.listTools({ cursor: first.nextCursor })).tools.map((t) => t.name)).toEqual(pages[1]!.tools.map((t: { name: string }) => t.name));

    const stranger = await agentWithGroups(request, [ops, local]);
    const theirs = await modernClient(stranger.token);
    await expect(theirs.listTools({ cursor: first.nextCursor })).rejects.toMatchObject({ code: -32602 });
    await expect(client.listTools({ cursor: "not-a-cursor" })).rejects.toMatchObject({ code: -32602 });
    await putGroup(request, unique("newer"), { description: "Moves the catalog on.", tools: [tool(unique("newer_tool"))] });
    await expect(client.listTools({ cursor: first.nextCursor })).rejects.toMatchObject({ code: -32602 });
    await Promise.all([client.close(), theirs.close()]);
  });

  test("tools/list - on 2026-07-28 a list is marked private to its caller with a time-to-live; 2025 answers carry no such fields", async () => {
    const { result } = await modernRequest(agent.token, "tools/list", {});
    expect(result).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
    expect(result.tools.length).toBe(2);
    const legacy = await rawList(agent.token);
    expect(legacy).not.toHaveProperty("ttlMs");
    expect(legacy).not.toHaveProperty("cacheScope");
  });

  test("tools/call - every refusal the model can act on is an isError result with its sentence, code, callId and retry hints; an unknown name is a protocol error", async () => {
    const client = await modernClient(agent.token);
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<any>;

    const invalid = await call(names.echo, { target: 42 });
    expect(invalid.isError).toBe(true);
    expect(invalid._meta).toMatchObject({ code: "invalid_arguments", recoverable: true });
    expect(invalid._meta.callId).toMatch(/^call_/);
    expect(invalid.content[0].text).toContain("do not match its schema");

    const hidden = await call(names.hidden, { target: "x" });
    expect(hidden.isError).toBe(true);
    expect(hidden._meta).toMatchObject({ code: "tool_not_available", recoverable: false });

    expect((await call(names.limited, { target: "a" })).isError ?? false).toBe(false);
    const limited = await call(names.limited, { target: "b" });
    expect(limited._meta).toMatchObject({ code: "rate_limited", recoverable: true });
    expect(limited._meta.retryAfterSeconds).toBeGreaterThan(0);

    for (let n = 0; n < 3; n++) await call(names.echo, { target: "same" });
    const loop = await call(names.echo, { target: "same" });
    expect(loop._meta).toMatchObject({ code: "doom_loop_detected", recoverable: true });

    expect((await request("POST", `/tools/${names.read}/disable`)).status).toBe(200);
    const disabled = await call(names.read, { target: "x" });
    expect(disabled._meta).toMatchObject({ code: "tool_disabled" });
    expect(await listed(client)).not.toContain(names.read);
    expect((await request("POST", `/tools/${names.read}/enable`)).status).toBe(200);

    executor.respond({ status: 500, body: { message: "boom" } });
    const failed = await call(names.read, { target: "y" });
    expect(failed._meta).toMatchObject({ code: "executor_failed", recoverable: false });
    executor.respond(({ body }) => ({ body: { content: `${body?.tool} ran on ${body?.arguments?.target}`, type: "text" } }));

    await expect(call(unique("no_such_tool"), {})).rejects.toSatisfy((error: unknown) => error instanceof ProtocolError && error.code === -32602);
    await client.close();
  });

  test("tools/call - a tool that reports an error is isError, a JSON result is structuredContent too", async () => {
    const client = await legacyClient(agent.token);
    executor.respond({ body: { content: "disk full", type: "error" } });
    const reported: any = await client.callTool({ name: names.echo, arguments: { target: "err" } });
    expect(reported).toMatchObject({ isError: true, content: [{ type: "text", text: "disk full" }] });
    const record = await request("GET", `/agents/${agent.agent.id}/calls/${reported._meta.callId}`, { token: agent.token });
    expect(record.body.status).toBe("error");
    executor.respond({ body: { content: JSON.stringify({ up: true, servers: 3 }), type: "json" } });
    const json: any = await client.callTool({ name: names.echo, arguments: { target: "json" } });
    expect(json.isError ?? false).toBe(false);
    expect(json.structuredContent).toEqual({ up: true, servers: 3 });
    executor.respond(({ body }) => ({ body: { content: `${body?.tool} ran on ${body?.arguments?.target}`, type: "text" } }));
    await client.close();
  });

  test("tools/call - a call awaiting approval is not a success: isError with the callId and where to approve; approved, it runs once", async () => {
    const client = await modernClient(agent.token);
    const before = executor.requestsFor(names.remove).length;
    const waiting: any = await client.callTool({ name: names.remove, arguments: { target: "web-1" } });
    expect(waiting.isError).toBe(true);
    expect(waiting._meta).toMatchObject({ code: "awaiting_confirmation", recoverable: true });
    const { callId } = waiting._meta;
    expect(waiting.content[0].text).toContain(`/calls/${callId}/approve`);
    expect(executor.requestsFor(names.remove).length).toBe(before);
    const approved = await request("POST", `/calls/${callId}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(executor.requestsFor(names.remove).length).toBe(before + 1);
    await client.close();
  });

  test("tools/call - a client with the Tasks extension gets a task for a call awaiting approval; tasks/get follows the call to its result, tasks/cancel withdraws it", async () => {
    const client = new Client({ name: "test-tasks", version: "1.0.0" }, { versionNegotiation: { mode: "auto" }, capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
    const Any = z.looseObject({});
    // tools/call goes out as a client declaring the extension sends it (see modernRequest); tasks/* through the SDK client.
    const callAsTask = async (target: string) => {
      const message = await modernRequest(agent.token, "tools/call", { name: names.remove, arguments: { target } }, { extensions: { "io.modelcontextprotocol/tasks": {} } });
      if (!message.result) throw new Error(`tools/call failed: ${JSON.stringify(message)}`);
      return message.result;
    };
    const getTask = (taskId: string) => client.request({ method: "tasks/get", params: { taskId } }, Any) as Promise<any>;

    const task = await callAsTask("web-2");
    expect(task).toMatchObject({ resultType: "task", status: "working", statusMessage: "Awaiting an operator's approval.", pollIntervalMs: 2000 });
    expect(task.taskId).toMatch(/^call_/);
    expect(task.createdAt).toBe((await request("GET", `/agents/${agent.agent.id}/calls/${task.taskId}`)).body.startedAt);
    expect(await getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: "working" });
    const before = executor.requestsFor(names.remove).length;
    expect((await request("POST", `/calls/${task.taskId}/approve`)).status).toBe(200);
    expect(executor.requestsFor(names.remove).length).toBe(before + 1);
    const done = await getTask(task.taskId);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: `${names.remove} ran on web-2` }] } });

    const withdrawn = await callAsTask("web-3");
    expect(await client.request({ method: "tasks/cancel", params: { taskId: withdrawn.taskId } }, Any)).toMatchObject({ status: "cancelled" });
    expect(await getTask(withdrawn.taskId)).toMatchObject({ status: "cancelled" });
    expect((await request("POST", `/calls/${withdrawn.taskId}/approve`)).status).toBe(409);
    expect(executor.requestsFor(names.remove).length).toBe(before + 1);

    const stranger = await agentWithGroups(request, [ops]);
    const theirs = new Client({ name: "test-tasks", version: "1.0.0" }, { versionNegotiation: { mode: "auto" }, capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
    await theirs.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${stranger.token}` } } }));
    await expect(theirs.request({ method: "tasks/get", params: { taskId: task.taskId } }, Any)).rejects.toMatchObject({ code: -32602 });
    await expect(client.request({ method: "tasks/update", params: { taskId: task.taskId, inputResponses: {} } }, Any)).rejects.toMatchObject({ code: -32602 });
    await Promise.all([client.close(), theirs.close()]);
  });
});

describe("/mcp at the edge", () => {
  const post = (headers: Record<string, string>, body: string) => fetch(`${served.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
  const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } } });

  test("no token or a bad one is 401 with the resource metadata challenge, which is served (RFC 9728)", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-token" }] as Array<Record<string, string>>) {
      const response = await post(headers, initialize);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${served.url}/.well-known/oauth-protected-resource"`);
      expect((await response.json()).error).toBe("unauthenticated");
    }
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = await fetch(`${served.url}${path}`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ resource: `${served.url}/mcp`, bearer_methods_supported: ["header"] });
    }
  });

  test("the admin token is refused: an MCP session is an agent", async () => {
    const response = await post({ authorization: `Bearer ${ADMIN_TOKEN}` }, initialize);
    expect(response.status).toBe(403);
    expect((await response.json()).message).toContain("agent");
  });

  /** A raw JSON-RPC request as a 2025 client without the SDK sends it (no session). */
  const rawRequest = (token: string, method: string, params: Record<string, unknown>) =>
    post({ authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" }, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));

  test("a terminated agent is refused on every /mcp request, the 2025 initialize included, with the 403 REST gives it; a client connected before is refused too", async () => {
    const doomed = await agentWithGroups(request, [ops]);
    const connected = await Promise.all([modernClient(doomed.token), legacyClient(doomed.token), v1Client(doomed.token)]);
    for (const [n, client] of connected.entries()) expect(((await client.callTool({ name: names.echo, arguments: { target: `warm-${n}` } })) as any).isError ?? false).toBe(false);
    expect((await request("DELETE", `/agents/${doomed.agent.id}`)).status).toBe(200);

    const rest = await request("GET", `/agents/${doomed.agent.id}/tools`, { token: doomed.token });
    expect(rest.status).toBe(403);
    const asked = [
      ["initialize", await post({ authorization: `Bearer ${doomed.token}` }, initialize)],
      ["tools/list", await rawRequest(doomed.token, "tools/list", {})],
      ["tools/call", await rawRequest(doomed.token, "tools/call", { name: names.echo, arguments: { target: "after" } })],
      ["tasks/get", await rawRequest(doomed.token, "tasks/get", { taskId: "call_01ARZ3NDEKTSV4RRFFQ69G5FAV" })],
    ] as const;
    for (const [method, response] of asked) {
      expect(response.status, method).toBe(403);
      expect(await response.json(), method).toEqual(rest.body);
    }
    for (const connect of [modernClient, legacyClient, v1Client])
      await expect(connect(doomed.token), connect.name).rejects.toThrow(/403|terminated/);
    for (const client of connected) {
      await expect(client.callTool({ name: names.echo, arguments: { target: "late" } })).rejects.toThrow(/403|terminated/);
      await expect(client.listTools()).rejects.toThrow(/403|terminated/);
    }
    expect(executor.requestsFor(names.echo).filter((received) => ["after", "late"].includes(received.body?.arguments?.target))).toEqual([]);
    await Promise.all(connected.map((client) => client.close()));
  });

  test("a revoked token (the agent was given a new one) is refused on every /mcp request, the handshake included, with REST's 401 and the challenge; the new token works", async () => {
    const agentNow = await agentWithGroups(request, [ops]);
    const warm = await legacyClient(agentNow.token);
    expect(((await warm.callTool({ name: names.echo, arguments: { target: "warm" } })) as any).isError ?? false).toBe(false);
    const reissued = await request("POST", `/agents/${agentNow.agent.id}/token`);
    expect(reissued.status).toBe(201);

    const rest = await request("GET", `/agents/${agentNow.agent.id}/tools`, { token: agentNow.token });
    expect(rest.status).toBe(401);
    for (const [method, response] of [
      ["initialize", await post({ authorization: `Bearer ${agentNow.token}` }, initialize)],
      ["tools/list", await rawRequest(agentNow.token, "tools/list", {})],
      ["tools/call", await rawRequest(agentNow.token, "tools/call", { name: names.echo, arguments: { target: "revoked" } })],
    ] as const) {
      expect(response.status, method).toBe(401);
      expect(response.headers.get("www-authenticate"), method).toBe(`Bearer resource_metadata="${served.url}/.well-known/oauth-protected-resource"`);
      expect(await response.json(), method).toEqual(rest.body);
    }
    for (const connect of [modernClient, legacyClient]) await expect(connect(agentNow.token), connect.name).rejects.toThrow();
    await expect(warm.callTool({ name: names.echo, arguments: { target: "revoked" } })).rejects.toThrow();
    expect(executor.requestsFor(names.echo).filter((received) => received.body?.arguments?.target === "revoked")).toEqual([]);

    const fresh = await modernClient(reissued.body.token);
    expect(((await fresh.callTool({ name: names.echo, arguments: { target: "fresh" } })) as any).isError ?? false).toBe(false);
    await Promise.all([warm.close(), fresh.close()]);
  });

  test("a browser Origin that is not allowed is refused with 403; the service's own origin is not", async () => {
    const foreign = await post({ authorization: `Bearer ${agent.token}`, origin: "https://evil.example" }, initialize);
    expect(foreign.status).toBe(403);
    const own = await post({ authorization: `Bearer ${agent.token}`, origin: served.url }, initialize);
    expect(own.status).toBe(200);
  });

  test("bad input gets protocol errors or 4xx, never a 500", async () => {
    const auth = { authorization: `Bearer ${agent.token}` };
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "curl", version: "1" },
    };
    const modern = { ...auth, "mcp-protocol-version": "2026-07-28" };
    const cases: Array<[string, Record<string, string>, string, number, number | string]> = [
      ["malformed JSON", auth, "{not json", 400, -32700],
      ["not JSON-RPC", auth, JSON.stringify({ hello: "world" }), 400, -32600],
      ["unknown method", auth, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/destroy", params: {} }), 200, -32601],
      ["a batch", auth, JSON.stringify([JSON.parse(initialize), JSON.parse(initialize)]), 400, -32600],
      ["an empty batch", auth, "[]", 400, -32600],
      ["deep nesting", auth, deep, 400, -32600],
      ["a huge body", auth, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1_200_000) } }), 413, "payload_too_large"],
      [
        "Mcp-Method header that disagrees with the body",
        { ...modern, "mcp-method": "tools/list" },
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: names.echo, arguments: { target: "x" }, _meta: envelope } }),
        400,
        -32020,
      ],
      [
        "Mcp-Name header that disagrees with the body",
        { ...modern, "mcp-method": "tools/call", "mcp-name": names.read },
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: names.echo, arguments: { target: "x" }, _meta: envelope } }),
        400,
        -32020,
      ],
    ];
    for (const [name, headers, body, status, code] of cases) {
      const response = await post(headers, body);
      const text = await response.text();
      expect(response.status, `${name}: ${text.slice(0, 200)}`).toBe(status);
      expect(text, name).toContain(typeof code === "number" ? `"code":${code}` : `"error":"${code}"`);
      expect(text, name).not.toMatch(/at .*\.(ts|js):\d+/);
    }
  });
});
