import { createLocalJWKSet, jwtVerify } from "jose";
import type { JSONWebKeySet } from "jose";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { argumentsHash, CALL_TOKEN_HEADER, closeMcpExecutor } from "@toolgate/core/executor";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { startUpstreamMcp } from "../support/upstream-mcp";
import type { UpstreamMcp } from "../support/upstream-mcp";
import { startV1Upstream } from "../support/upstream-mcp-v1";
import type { V1Upstream } from "../support/upstream-mcp-v1";
import { createAgent, createRole, putGroup, storedText, unique } from "./helpers";

const EXECUTOR_SECRET = "exec-secret-0123456789abcdef";
let toolgate: Toolgate;
let request: Api;
let executor: Executor;
let upstream: UpstreamMcp;
let v1: V1Upstream;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  executor = await startExecutor();
  upstream = await startUpstreamMcp({ tools: [{ name: "lookup", description: "Looks a word up.", inputSchema: { type: "object", properties: { word: { type: "string" } } } }] });
  v1 = await startV1Upstream();
});

afterAll(async () => {
  await executor.close();
  await upstream.close();
  await v1.close();
});

afterEach(() => vi.unstubAllEnvs());

/** The call token a request carried, checked as a module checks it: against toolgate's published keys, for the module's own URL. */
async function verified(token: string | string[] | undefined, audience: string) {
  const published = await request("GET", "/.well-known/jwks.json", { token: null });
  expect(published.status).toBe(200);
  expect(published.headers.get("cache-control")).toMatch(/max-age=\d+/);
  expect(typeof token).toBe("string");
  const { payload } = await jwtVerify(token as string, createLocalJWKSet(published.body as JSONWebKeySet), { issuer: "toolgate", audience });
  return payload;
}

async function agentIn(groupId: string, department?: string) {
  const role = await createRole(request, { name: unique("role"), toolGroups: [groupId] });
  const { agent, token } = await createAgent(request, role.id, department ? { department } : {});
  return { role, agent, token };
}

test("an http executor gets every call with a token toolgate signed for it, naming the call, the agent and the arguments, and its own headers with secrets read at call time", async () => {
  vi.stubEnv("TOOLGATE_SECRET_EXEC_TOKEN", EXECUTOR_SECRET);
  const groupId = unique("signed");
  await putGroup(request, groupId, {
    description: "Tools whose executor checks who calls it.",
    executor: { type: "http", url: `${executor.url}/run`, headers: { Authorization: { secret: "EXEC_TOKEN", prefix: "Bearer " }, "X-Team": "blue" } },
    tools: [tool(`${groupId}_echo`)],
  });
  const { role, agent, token } = await agentIn(groupId, "research");
  executor.respond((received) => ({ body: { content: `you sent ${String(received.headers.authorization)}` } }));
  const args = { word: "gate", options: { exact: true } };
  const response = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: `${groupId}_echo`, arguments: args } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.result.content).toBe("you sent Bearer [REDACTED]");

  const received = executor.requestsFor(`${groupId}_echo`).at(-1)!;
  expect(received.headers.authorization).toBe(`Bearer ${EXECUTOR_SECRET}`);
  expect(received.headers["x-team"]).toBe("blue");
  expect(received.body).toMatchObject({ callId: response.body.callId, agentId: agent.id, roleId: role.id, department: "research", arguments: args });
  const claims = await verified(received.headers[CALL_TOKEN_HEADER], `${executor.url}/run`);
  expect(claims).toMatchObject({ call: response.body.callId, sub: agent.id, role: role.id, department: "research", tool: `${groupId}_echo` });
  expect(claims.exp! - claims.iat!, "the call's timeout (30 s by default) and the clock skew allowed, no more").toBeLessThanOrEqual(30 + 5 + 1);
  expect(claims.args).toBe(argumentsHash(received.body.arguments, "any"));
  expect(claims.args).not.toBe(argumentsHash({ ...args, word: "other" }, "any"));
  await expect(verified(received.headers[CALL_TOKEN_HEADER], "http://127.0.0.1:9/elsewhere")).rejects.toThrow(/aud/);
  expect(await storedText(toolgate)).not.toContain(EXECUTOR_SECRET);
});

test("an http executor's secret-looking header must name a secret, and the call token's header is toolgate's own", async () => {
  const literal = await request("PUT", `/groups/${unique("literal")}`, {
    body: { description: "Literal secret.", executor: { type: "http", url: `${executor.url}/run`, headers: { Authorization: "Bearer plain" } }, tools: [tool("x_one")] },
  });
  expect(literal.status).toBe(400);
  expect(literal.body).toMatchObject({ error: "invalid_group_def", message: expect.stringContaining('"Authorization" must name a secret') });
  const reserved = await request("PUT", `/groups/${unique("reserved")}`, {
    body: { description: "Forged token.", executor: { type: "http", url: `${executor.url}/run`, headers: { "Toolgate-Call": "forged" } }, tools: [tool("x_two")] },
  });
  expect(reserved.status).toBe(400);
  expect(JSON.stringify(reserved.body)).toContain("is set by toolgate's transport");
});

test("an MCP module's tools/call carries the call token too, for the server's own URL", async () => {
  const groupId = unique("mcpsigned");
  await putGroup(request, groupId, { description: "An MCP module.", executor: { type: "mcp", url: upstream.url, toolPrefix: "sg" } });
  const { agent, token } = await agentIn(groupId);
  const response = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "sg_lookup", arguments: { word: "gate" } } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const received = upstream.calls.at(-1)!;
  expect(received.name).toBe("lookup");
  const claims = await verified(received.headers[CALL_TOKEN_HEADER], upstream.url);
  expect(claims).toMatchObject({ call: response.body.callId, sub: agent.id, tool: "lookup", args: argumentsHash({ word: "gate" }, "any") });
});

test("every request of a call to a 2025-era MCP server (v1 SDK, stateful) carries a token of its own: the handshake of a new session too, each with its own jti, the same call and deadline", async () => {
  const groupId = unique("sessions");
  await putGroup(request, groupId, { description: "A v1 server.", executor: { type: "mcp", url: v1.url, toolPrefix: "v1" } });
  const { agent, token } = await agentIn(groupId);
  // The sessions the import left idle are closed: the first call opens one of its own, the second takes it.
  await closeMcpExecutor();
  const since = v1.requests.length;
  const answers = [];
  for (const text of ["one", "two"]) answers.push(await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "v1_echo", arguments: { text } } }));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
  const sent = v1.requests.slice(since).filter((received) => received.headers[CALL_TOKEN_HEADER]);
  expect(sent.flatMap((received) => received.rpc)).toEqual(expect.arrayContaining(["initialize", "notifications/initialized", "tools/call"]));
  const claims = await Promise.all(sent.map((received) => verified(received.headers[CALL_TOKEN_HEADER], v1.url)));
  expect(new Set(claims.map((claim) => claim.jti)).size, "no token sent twice").toBe(sent.length);
  for (const { body } of answers) {
    const ofCall = claims.filter((claim) => claim.call === body.callId);
    expect(ofCall.length).toBeGreaterThan(0);
    expect(new Set(ofCall.map((claim) => claim.deadline)).size, "one deadline for the whole call").toBe(1);
  }
});

test("arguments no token can name (text that is not well-formed Unicode) end the call as a recorded invalid_arguments failure, before any executor hears of it", async () => {
  const groupId = unique("unsignable");
  await putGroup(request, groupId, { description: "Tools whose calls are signed.", executor: { type: "http", url: `${executor.url}/run` }, tools: [tool(`${groupId}_echo`)] });
  const { agent, token } = await agentIn(groupId);
  const response = await request("POST", `/agents/${agent.id}/calls`, { token, rawBody: `{"tool": "${groupId}_echo", "arguments": {"word": "\\ud800"}}` });
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body).toMatchObject({ error: "invalid_arguments", message: expect.stringContaining("lone surrogate") });
  expect(executor.requestsFor(`${groupId}_echo`)).toHaveLength(0);
  const recorded = await request("GET", `/agents/${agent.id}/calls/${response.body.callId}`, { token });
  expect(recorded.body).toMatchObject({ status: "error", error: { code: "invalid_arguments" } });
});
