// Input an attacker sends to find a 500 or a silent change: each is a clear 400 with a stable code and a sentence.
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { ADMIN_TOKEN, api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { agentWithGroups } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let agent: Awaited<ReturnType<typeof agentWithGroups>>;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  agent = await agentWithGroups(request, ["workspace"]);
  const rooted = await request("PATCH", `/roles/${agent.role.id}`, { body: { workspaceRoot: "/work/app" } });
  expect(rooted.status, JSON.stringify(rooted.body)).toBe(200);
});

afterAll(() => served?.close());

const call = (args: Record<string, unknown>, tool = "read_file") => request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool, arguments: args } });

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
const postMcp = (body: BodyInit) => fetch(`${served.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${agent.token}` }, body });

test("a path argument holding NUL or another control character is 400 invalid_arguments naming it, recorded as refused, though its text resolves inside the root", async () => {
  for (const [path, character] of [
    ["/etc/passwd\u0000/../../work/app/x", "U+0000"],
    ["/work/app/a\nb", "U+000A"],
    ["/work/app/\u001b[2Jx", "U+001B"],
  ] as const) {
    const refused = await call({ path });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({ error: "invalid_arguments", details: [{ path: "path", message: expect.stringContaining(character) }] });
    const recorded = await request("GET", `/agents/${agent.agent.id}/calls/${refused.body.callId}`);
    expect(recorded.body).toMatchObject({ status: "refused" });
  }
  expect((await call({ path: "/work/app/x\ty" })).status).toBe(400);
  expect((await call({ path: "/work/app/ünïcode x" })).status).toBe(202);
});

test("a body that is not UTF-8 is 400 invalid_json, never stored with its bytes replaced; over /mcp a JSON-RPC parse error", async () => {
  const bytes = Buffer.concat([Buffer.from('{"tool":"read_file","arguments":{"path":"/work/app/'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}')]);
  const rest = await fetch(`${served.url}/agents/${agent.agent.id}/calls`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${agent.token}` }, body: bytes });
  expect(rest.status).toBe(400);
  expect(await rest.json()).toEqual({ error: "invalid_json", message: "The request body is not valid UTF-8 text." });
  const role = await fetch(`${served.url}/roles`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` }, body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]) });
  expect(role.status).toBe(400);

  const overMcp = await postMcp(bytes);
  expect(overMcp.status).toBe(400);
  expect(await overMcp.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "The request body is not valid UTF-8 text.", data: { code: "invalid_json" } } });
});

test("/mcp refuses params nested deeper than REST accepts (64) with a JSON-RPC error naming the limit, as REST does with json_too_deep", async () => {
  const deep = `${'{"a":'.repeat(10_000)}"x"${"}".repeat(10_000)}`;
  const response = await postMcp(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/work/app/x","deep":${deep}}}}`);
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600, message: expect.stringContaining("more than 64 levels deep"), data: { code: "json_too_deep" } } });
});

test("a __proto__ key, which a parser would drop silently or make a prototype, is 400 invalid_json naming where it is, over REST and /mcp; constructor and prototype keys are unknown fields like any other", async () => {
  const rest = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, rawBody: '{"tool":"read_file","arguments":{"path":"/work/app/x","__proto__":{"admin":true}}}' });
  expect(rest.status, JSON.stringify(rest.body)).toBe(400);
  expect(rest.body).toEqual({ error: "invalid_json", message: expect.stringContaining('"__proto__" (at arguments.__proto__)') });
  const escaped = await request("POST", "/roles", { rawBody: '{"name":"r","\\u005f_proto__":{"x":1}}' });
  expect(escaped.body).toMatchObject({ error: "invalid_json", message: expect.stringContaining("__proto__") });

  const overMcp = await postMcp('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/work/app/x","__proto__":{}}}}');
  expect(overMcp.status).toBe(400);
  expect(await overMcp.json()).toMatchObject({ id: 3, error: { code: -32600, data: { code: "invalid_json" } } });

  for (const key of ["constructor", "prototype"]) {
    const role = await request("POST", "/roles", { rawBody: JSON.stringify({ name: "r", rolePrompt: "x", [key]: { x: 1 } }) });
    expect(role.status, key).toBe(400);
    expect(role.body).toMatchObject({ error: "invalid_role", message: expect.stringContaining(`unknown field "${key}"`) });
  }
});
