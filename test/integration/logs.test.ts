import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Toolgate } from "@toolgate/core/toolgate";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { logger } from "@toolgate/functions/log";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { ADMIN_TOKEN, api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, moduleEvent, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  served = await serveToolgate(toolgate);
});

afterAll(() => served?.close());

const captured: string[] = [];
function captureLogs() {
  captured.length = 0;
  logger.setLogLevel("INFO");
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
      captured.push(String(chunk));
      return true;
    });
}
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel("WARN");
});
const lines = () => captured.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));

/** An agent whose role has one tool, run by the given executor. */
async function loggedAgent(executor: Record<string, unknown> = { type: "client" }) {
  const group = unique("logged");
  const toolName = unique("echo_secret");
  await putGroup(request, group, { description: "Logged tools.", tools: [tool(toolName)], executor });
  const role = await createRole(request, { name: unique("Logged"), toolGroups: [group] });
  return { toolName, ...(await createAgent(request, role.id)) };
}

test("logs - one JSON line per request: id, route, status, duration, who asked and the call's id; no token, secret or argument", async () => {
  const { agent, token, toolName } = await loggedAgent();
  const secret = `s3cr3t-${unique("value")}`;

  captureLogs();
  const call = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: toolName, arguments: { password: secret, note: secret } } });
  await request("GET", `/agents/${agent.id}`);
  await request("GET", "/roles", { token: null });
  const logged = lines();

  expect(call.status).toBe(202);
  expect(logged).toHaveLength(3);
  expect(logged[0]).toMatchObject({
    level: "INFO",
    message: "request",
    service: "toolgate",
    requestId: expect.any(String),
    method: "POST",
    route: "POST /agents/:id/calls",
    status: 202,
    durationMs: expect.any(Number),
    principal: "agent",
    agentId: agent.id,
    callId: call.body.callId,
  });
  expect(logged[1]).toMatchObject({ route: "GET /agents/:id", status: 200, principal: "admin" });
  expect(logged[1].agentId).toBeUndefined();
  expect(logged[1].callId).toBeUndefined();
  expect(logged[2]).toMatchObject({ route: "GET /roles", status: 401, principal: "none" });
  const text = captured.join("");
  for (const hidden of [secret, token, ADMIN_TOKEN]) expect(text).not.toContain(hidden);
});

test("logs - /mcp with an agent's token names the agent, as REST does; the admin token, a refused one and none are told apart", async () => {
  const { agent, token, toolName } = await loggedAgent({ type: "http", url: "http://127.0.0.1:9/never-called" });
  const other = await loggedAgent();
  const mcpPost = (authorization?: string) =>
    fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  captureLogs();
  const client = new Client({ name: "logged-client", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const listed = await client.listTools();
  await client.close();
  const asAgent = lines();
  captured.length = 0;
  const statuses = [
    (await mcpPost(`Bearer ${ADMIN_TOKEN}`)).status,
    (await mcpPost(`Bearer ${other.token}x`)).status,
    (await mcpPost()).status,
    (await request("GET", `/agents/${other.agent.id}`, { token })).status,
  ];
  const refused = lines();

  expect(listed.tools.map((listedTool) => listedTool.name)).toEqual([toolName]);
  expect(asAgent.length).toBeGreaterThan(0);
  for (const line of asAgent) expect(line).toMatchObject({ message: "request", route: "POST /mcp", status: 200, principal: "agent", agentId: agent.id });
  expect(statuses).toEqual([403, 401, 401, 403]);
  expect(refused.map(({ route, status, principal, agentId }) => ({ route, status, principal, agentId }))).toEqual([
    { route: "POST /mcp", status: 403, principal: "admin", agentId: undefined },
    { route: "POST /mcp", status: 401, principal: "none", agentId: undefined },
    { route: "POST /mcp", status: 401, principal: "none", agentId: undefined },
    { route: "GET /agents/:id", status: 403, principal: "agent", agentId: agent.id },
  ]);
  const text = captured.join("");
  for (const hidden of [token, other.token, ADMIN_TOKEN]) expect(text).not.toContain(hidden);
});

test("logs - a terminated agent's token is refused and still names the agent, on /mcp and REST", async () => {
  const { agent, token } = await loggedAgent();
  expect((await request("DELETE", `/agents/${agent.id}`)).status).toBe(200);

  captureLogs();
  const handshake = await fetch(`${served.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "1" } } }),
  });
  const tools = await request("GET", `/agents/${agent.id}/tools`, { token });
  const logged = lines();

  expect([handshake.status, tools.status]).toEqual([403, 403]);
  expect(logged.map(({ route, status, principal, agentId }) => ({ route, status, principal, agentId }))).toEqual([
    { route: "POST /mcp", status: 403, principal: "agent", agentId: agent.id },
    { route: "GET /agents/:id/tools", status: 403, principal: "agent", agentId: agent.id },
  ]);
  expect(captured.join("")).not.toContain(token);
});

test("logs - an answering token's requests name it by id, answered or refused, and never carry the token", async () => {
  const issued = await request("POST", "/answer-tokens", { body: { name: unique("logged-bot") } });
  const { id, token } = issued.body as { id: string; token: string };

  captureLogs();
  const statuses = [
    (await request("GET", "/calls?status=awaiting_answer", { token })).status,
    (await request("GET", "/calls?status=awaiting_confirmation", { token })).status,
    (await request("GET", "/roles", { token })).status,
  ];
  expect((await request("DELETE", `/answer-tokens/${id}`)).status).toBe(204);
  statuses.push((await request("POST", "/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV/answer", { token, body: { answer: "yes" } })).status);
  const logged = lines();

  expect(statuses).toEqual([200, 403, 403, 401]);
  expect(logged.map(({ route, status, principal, answerTokenId }) => ({ route, status, principal, answerTokenId }))).toEqual([
    { route: "GET /calls", status: 200, principal: "answerer", answerTokenId: id },
    { route: "GET /calls", status: 403, principal: "answerer", answerTokenId: id },
    { route: "GET /roles", status: 403, principal: "answerer", answerTokenId: id },
    { route: "DELETE /answer-tokens/:id", status: 204, principal: "admin", answerTokenId: undefined },
    { route: "POST /calls/:callId/answer", status: 401, principal: "none", answerTokenId: undefined },
  ]);
  expect(captured.join("")).not.toContain(token);
});

test("logs - one line per module event handled, with its outcome and none of its detail", async () => {
  const module = unique("logmod");
  const description = `Described ${unique("privately")}`;
  captureLogs();
  await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module, version: 1, description, tools: [tool(unique("t"))], executor: { type: "http", url: "http://127.0.0.1:9/x" } }, "evt-logged"));
  const [line] = lines();
  expect(line).toMatchObject({ level: "INFO", message: "event", eventId: "evt-logged", source: "toolgate.modules", detailType: "module.loaded", outcome: "loaded", module, durationMs: expect.any(Number) });
  expect(captured.join("")).not.toContain(description);
});
