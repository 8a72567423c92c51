import { beforeAll, expect, test } from "vitest";
import { TokenSigner } from "@toolgate/core/agent";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, ADMIN_TOKEN, SIGNING_KEY, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let agent: Awaited<ReturnType<typeof agentWithGroups>>;
let other: Awaited<ReturnType<typeof agentWithGroups>>;
let group: string;
let roleId: string;
const authTool = unique("auth_tool");

type Route = readonly [method: string, path: string, body?: unknown];

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  group = unique("authgroup");
  await putGroup(request, group, { description: "x", tools: [tool(authTool)] });
  agent = await agentWithGroups(request, [group]);
  other = await agentWithGroups(request, [group]);
  roleId = agent.role.id;
});

const adminRoutes = (): Route[] => [
  ["GET", "/groups"],
  ["GET", "/groups/workspace"],
  ["PUT", `/groups/${unique("g")}`, { description: "x", tools: [tool(unique("t"))] }],
  ["DELETE", `/groups/${group}`],
  ["GET", "/tools/read_file"],
  ["GET", "/modules"],
  ["GET", "/modules/anything"],
  ["GET", "/roles"],
  ["POST", "/roles", { name: unique("r") }],
  ["GET", `/roles/${roleId}`],
  ["GET", `/roles/by-name/${agent.role.name}`],
  ["PATCH", `/roles/${roleId}`, { rolePrompt: "changed by an intruder" }],
  ["POST", "/agents", { roleId }],
  ["DELETE", `/agents/${agent.agent.id}`],
  ["POST", `/agents/${agent.agent.id}/token`],
  ["POST", "/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV/approve"],
  ["POST", "/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV/deny"],
  ["PUT", `/tools/${authTool}/policy`, { timeoutMs: 5 }],
  ["POST", `/tools/${authTool}/disable`],
  ["POST", `/tools/${authTool}/enable`],
  ["GET", "/answer-tokens"],
  ["POST", "/answer-tokens", { name: unique("bot") }],
  ["DELETE", "/answer-tokens/atk_01ARZ3NDEKTSV4RRFFQ69G5FAV"],
];

const selfRoutes = (id: string): Route[] => [
  ["GET", `/agents/${id}`],
  ["GET", `/agents/${id}/tools`],
  ["GET", `/agents/${id}/calls`],
  ["GET", `/agents/${id}/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV`],
  ["POST", `/agents/${id}/calls`, { tool: authTool, arguments: {} }],
  ["GET", `/agents/${id}/messages`],
  ["POST", `/agents/${id}/calls/call_01ARZ3NDEKTSV4RRFFQ69G5FAV/result`, { content: "done" }],
];

const IN_A_DAY = new Date(Date.now() + 24 * 60 * 60_000).toISOString();

const badTokens = async () => [
  "not-a-token",
  `${ADMIN_TOKEN}x`,
  ADMIN_TOKEN.slice(0, -1),
  // A well-formed token for a real agent, signed with another key.
  await new TokenSigner(`${SIGNING_KEY}-but-another-one`).sign({ agentId: agent.agent.id, tokenVersion: 1, expiresAt: IN_A_DAY }),
  // Signed with the right key for an agent that does not exist.
  await new TokenSigner(SIGNING_KEY).sign({ agentId: "agt_nobody", tokenVersion: 1, expiresAt: IN_A_DAY }),
];

/** Nothing an unauthorised request tried may have happened. */
async function expectUntouched() {
  expect((await request("GET", `/groups/${group}`)).status).toBe(200);
  expect((await request("GET", `/roles/${roleId}`)).body).toMatchObject({ version: 1, rolePrompt: "Do the work." });
  expect((await request("GET", `/agents/${agent.agent.id}`)).body.status).toBe("active");
  expect((await request("GET", `/agents/${agent.agent.id}`, { token: agent.token })).status).toBe(200);
}

test("admin routes - without a token: 401 unauthenticated", async () => {
  for (const [method, path, body] of adminRoutes()) {
    const response = await request(method, path, { token: null, body });
    expect(response.status, `${method} ${path}`).toBe(401);
    expect(response.body.error, `${method} ${path}`).toBe("unauthenticated");
    expect(typeof response.body.message).toBe("string");
  }
  await expectUntouched();
});

test("admin routes - with a bad token or a malformed Authorization header: 401", async () => {
  const tokens = await badTokens();
  for (const [method, path, body] of adminRoutes()) {
    for (const token of tokens) {
      const response = await request(method, path, { token, body });
      expect(response.status, `${method} ${path} with ${token.slice(0, 12)}`).toBe(401);
      expect(response.body.error).toBe("unauthenticated");
    }
    for (const authorization of [`Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN, "Bearer", "Bearer ", `Bearer ${ADMIN_TOKEN} extra`]) {
      const response = await request(method, path, { token: null, body, headers: { authorization } });
      expect(response.status, `${method} ${path} with "${authorization}"`).toBe(401);
    }
  }
  await expectUntouched();
});

test("admin routes - with an agent's token: 403 forbidden", async () => {
  for (const [method, path, body] of adminRoutes()) {
    const response = await request(method, path, { token: agent.token, body });
    expect(response.status, `${method} ${path}`).toBe(403);
    expect(response.body.error).toBe("forbidden");
    expect(typeof response.body.message).toBe("string");
  }
  await expectUntouched();
});

test("agent routes - without a token or with a bad one: 401", async () => {
  const tokens = await badTokens();
  for (const [method, path, body] of selfRoutes(agent.agent.id)) {
    expect((await request(method, path, { token: null, body })).status, `${method} ${path}`).toBe(401);
    for (const token of tokens) expect((await request(method, path, { token, body })).status, `${method} ${path}`).toBe(401);
  }
});

test("agent routes - another agent's token: 403, and nothing is recorded for either agent", async () => {
  for (const [method, path, body] of selfRoutes(agent.agent.id)) {
    const response = await request(method, path, { token: other.token, body });
    expect(response.status, `${method} ${path}`).toBe(403);
    expect(response.body.error).toBe("forbidden");
  }
  expect((await request("GET", `/agents/${agent.agent.id}/calls`)).body.calls).toEqual([]);
  expect((await request("GET", `/agents/${other.agent.id}/calls`)).body.calls).toEqual([]);
});

test("agent routes - the agent's own token works, and the admin token works on all but the agent's own POSTs", async () => {
  for (const [method, path, body] of selfRoutes(agent.agent.id)) {
    const own = await request(method, path, { token: agent.token, body });
    expect([401, 403], `${method} ${path} as self: ${JSON.stringify(own.body)}`).not.toContain(own.status);
    expect(["unauthenticated", "forbidden"]).not.toContain(own.body?.error);
    const admin = await request(method, path, { body });
    if (method === "POST") expect(admin.status).toBe(403);
    else expect([401, 403], `${method} ${path} as admin`).not.toContain(admin.status);
  }
});

test("GET /health - answers { ok: true, store: \"available\" } without a token", async () => {
  for (const token of [null, "garbage", agent.token, ADMIN_TOKEN]) {
    const response = await request("GET", "/health", { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, store: "available" });
  }
});

const DAY_MS = 24 * 60 * 60_000;

test("agent tokens expire: issued for TOOLGATE_AGENT_TOKEN_DAYS (90), the agent record says when, and one past it is 401 saying when it expired and how to get another", async () => {
  const fresh = await agentWithGroups(request, [group]);
  const { tokenExpiresAt } = (await request("GET", `/agents/${fresh.agent.id}`)).body;
  expect(Math.abs(Date.parse(tokenExpiresAt) - (Date.now() + 90 * DAY_MS))).toBeLessThan(60_000);
  expect((await request("GET", `/agents/${fresh.agent.id}/tools`, { token: fresh.token })).status).toBe(200);

  const expired = await toolgate.tokens.sign({ agentId: fresh.agent.id, tokenVersion: 1, expiresAt: new Date(Date.now() - 1000).toISOString() });
  const refused = await request("GET", `/agents/${fresh.agent.id}/tools`, { token: expired });
  expect(refused.status).toBe(401);
  expect(refused.body).toEqual({ error: "unauthenticated", message: expect.stringMatching(new RegExp(`^The token expired on .*POST /agents/${fresh.agent.id}/token\\.$`)) });
});

test("agent tokens expire: one issued before tokens carried an expiry is honoured for 90 days after its issue, then refused", async () => {
  const fresh = await agentWithGroups(request, [group]);
  const { SignJWT } = await import("jose");
  const issuedAgo = (days: number) =>
    new SignJWT({ tv: 1 })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(fresh.agent.id)
      .setIssuer("toolgate")
      .setAudience("toolgate:agent")
      .setIssuedAt(Math.floor((Date.now() - days * DAY_MS) / 1000))
      .sign(Buffer.from(SIGNING_KEY, "utf8"));
  expect((await request("GET", `/agents/${fresh.agent.id}/tools`, { token: await issuedAgo(89) })).status).toBe(200);
  const old = await request("GET", `/agents/${fresh.agent.id}/tools`, { token: await issuedAgo(91) });
  expect(old.status).toBe(401);
  expect(old.body.message).toContain("The token expired on");
});

test("POST /agents/:id/token - rotates: the new token works and expires 90 days from now, the old one is refused", async () => {
  const fresh = await agentWithGroups(request, [group]);
  const rotated = await request("POST", `/agents/${fresh.agent.id}/token`);
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
  expect(Math.abs(Date.parse(rotated.body.agent.tokenExpiresAt) - (Date.now() + 90 * DAY_MS))).toBeLessThan(60_000);
  expect((await request("GET", `/agents/${fresh.agent.id}/tools`, { token: rotated.body.token })).status).toBe(200);
  expect((await request("GET", `/agents/${fresh.agent.id}/tools`, { token: fresh.token })).status).toBe(401);
});
