import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, allCalls, callTool, echoReply, guarded, httpGroup, policyTool, readCall, unique } from "./helpers";
import type { Guarded } from "./helpers";

let g: Guarded;
const REDACTED = "[REDACTED]";

/** Tools whose executor answers something other than the default echo of the arguments. */
const replies = { plain: unique("plain_secret"), metadata: unique("metadata_secret") };
const PLAIN_SECRET = "pw-Plain-5150";
const METADATA_SECRET = "tok-Meta-6161";

beforeAll(async () => {
  g = await guarded();
  g.executor.respond((request) => {
    const { tool, arguments: args } = request.body ?? {};
    if (tool === replies.plain) return { body: { content: `your password is ${args?.password}`, type: "text" } };
    if (tool === replies.metadata)
      return { body: { content: "done", type: "text", metadata: { token: "x", note: `the key was ${args?.apiKey}`, pages: 3 } } };
    return echoReply(request);
  });
});

afterAll(async () => {
  await g?.close();
});

/** The call item exactly as DynamoDB Local holds it. */
async function rawCall(agentId: string, callId: string) {
  const { Item } = await g.toolgate.db.doc.send(
    new GetCommand({ TableName: g.toolgate.db.table, Key: { pk: `AGENT#${agentId}`, sk: `CALL#${callId}` }, ConsistentRead: true }),
  );
  expect(Item, "the call item is stored").toBeDefined();
  return Item!;
}

/** The item kept beside a waiting call, exactly as DynamoDB Local holds it. */
async function rawCallRef(callId: string) {
  const { Item } = await g.toolgate.db.doc.send(
    new GetCommand({ TableName: g.toolgate.db.table, Key: { pk: `CALLREF#${callId}`, sk: "CALLREF" }, ConsistentRead: true }),
  );
  return Item;
}

/** The item's JSON text, and every string in it read as base64 / base64url too: a secret merely encoded is still readable. */
function readableForms(item: unknown): string[] {
  const forms = [JSON.stringify(item)];
  const pending: unknown[] = [item];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      const body = value.replace(/^v\d+\./, "");
      forms.push(Buffer.from(body, "base64url").toString("latin1"), Buffer.from(body, "base64").toString("latin1"));
    } else if (value !== null && typeof value === "object") pending.push(...Object.values(value));
  }
  return forms;
}

function expectNoSecret(where: string, value: unknown, secrets: string[]) {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  for (const secret of secrets) expect(text.includes(secret), `${where} contains the secret ${JSON.stringify(secret)}: ${text}`).toBe(false);
}

/** Every place a stored call can be read back: GET one call, the history list, and the raw DynamoDB item. */
async function expectStoredWithout(agentId: string, callId: string, secrets: string[]) {
  const record = await readCall(g.request, agentId, callId);
  expectNoSecret("GET /agents/:id/calls/:callId", record, secrets);
  const listed = (await allCalls(g.request, agentId)).find((call) => call.callId === callId);
  expect(listed).toBeDefined();
  expectNoSecret("GET /agents/:id/calls", listed, secrets);
  expectNoSecret("the raw DynamoDB call item", await rawCall(agentId, callId), secrets);
  return record;
}

test("secrets never stored - secret-looking keys in many spellings, and secret name/value pairs, are [REDACTED] in the record and the raw item; the executor gets the real values", async () => {
  const name = unique("login");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)]);
  const caller = await agentOn(g.request, [group]);
  const args = {
    user: "ann-visible",
    note: "nothing to hide here",
    password: "pw-Alpha-1001",
    passwd: "pw-Bravo-1002",
    APITOKEN: "tok-Charlie-1003",
    dbpassword: "pw-Delta-1004",
    password1: "pw-Echo-1005",
    accessToken: "tok-Foxtrot-1006",
    clientSecret: "sec-Golf-1007",
    api_key: "key-Hotel-1008",
    apiKey: "key-India-1009",
    Authorization: "Bearer tok-Juliet-1010",
    credentials: { username: "svc-Kilo-1011", secret: "sec-Lima-1012" },
    private_key: "-----BEGIN KEY-----Mike-1013",
    headers: [
      { name: "Authorization", value: "Bearer abc123xyz" },
      { key: "DB_PASSWORD", value: "pw-Value-77" },
      { name: "Accept", value: "application/json" },
    ],
  };
  const secrets = [
    "pw-Alpha-1001",
    "pw-Bravo-1002",
    "tok-Charlie-1003",
    "pw-Delta-1004",
    "pw-Echo-1005",
    "tok-Foxtrot-1006",
    "sec-Golf-1007",
    "key-Hotel-1008",
    "key-India-1009",
    "tok-Juliet-1010",
    "svc-Kilo-1011",
    "sec-Lima-1012",
    "Mike-1013",
    "abc123xyz",
    "pw-Value-77",
  ];

  const response = await callTool(g.request, caller, name, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(g.executor.requestsFor(name)).toHaveLength(1);
  expect(g.executor.requestsFor(name)[0]!.body.arguments, "the executor receives the real values").toEqual(args);

  const record = await expectStoredWithout(caller.agent.id, response.body.callId, secrets);
  expect(record.arguments).toEqual({
    user: "ann-visible",
    note: "nothing to hide here",
    password: REDACTED,
    passwd: REDACTED,
    APITOKEN: REDACTED,
    dbpassword: REDACTED,
    password1: REDACTED,
    accessToken: REDACTED,
    clientSecret: REDACTED,
    api_key: REDACTED,
    apiKey: REDACTED,
    Authorization: REDACTED,
    credentials: REDACTED,
    private_key: REDACTED,
    headers: [
      { name: "Authorization", value: REDACTED },
      { key: "DB_PASSWORD", value: REDACTED },
      { name: "Accept", value: "application/json" },
    ],
  });
  expect((await rawCall(caller.agent.id, response.body.callId)).call.arguments).toEqual(record.arguments);
});

test("secrets never stored - a tool echoing its input keeps no redacted value in the stored result; the agent's own response still has the real result", async () => {
  const name = unique("echo");
  const group = await httpGroup(g.request, g.executor, [policyTool(name)]);
  const caller = await agentOn(g.request, [group]);
  const args = { query: "weather in Oslo", api_key: "key-Echoed-2020", nested: { sessionToken: "tok-Nested-2121" } };

  const response = await callTool(g.request, caller, name, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(JSON.parse(response.body.result.content), "the agent gets the executor's real answer").toEqual({ tool: name, arguments: args });

  const record = await expectStoredWithout(caller.agent.id, response.body.callId, ["key-Echoed-2020", "tok-Nested-2121"]);
  expect(record.status).toBe("completed");
  expect(record.result.content).toContain(REDACTED);
  expect(JSON.parse(record.result.content)).toEqual({
    tool: name,
    arguments: { query: "weather in Oslo", api_key: REDACTED, nested: { sessionToken: REDACTED } },
  });
});

test("secrets never stored - a plain-text result naming the secret is stored scrubbed", async () => {
  const group = await httpGroup(g.request, g.executor, [policyTool(replies.plain)]);
  const caller = await agentOn(g.request, [group]);

  const response = await callTool(g.request, caller, replies.plain, { user: "ann", password: PLAIN_SECRET });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.result.content).toBe(`your password is ${PLAIN_SECRET}`);

  const record = await expectStoredWithout(caller.agent.id, response.body.callId, [PLAIN_SECRET]);
  expect(record.result).toMatchObject({ content: `your password is ${REDACTED}`, type: "text" });
});

test("secrets never stored - executor metadata with a secret key is stored redacted, and a secret in its other values scrubbed", async () => {
  const group = await httpGroup(g.request, g.executor, [policyTool(replies.metadata)]);
  const caller = await agentOn(g.request, [group]);

  const response = await callTool(g.request, caller, replies.metadata, { apiKey: METADATA_SECRET });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.result.metadata, "the agent gets the real metadata").toEqual({ token: "x", note: `the key was ${METADATA_SECRET}`, pages: 3 });

  const record = await expectStoredWithout(caller.agent.id, response.body.callId, [METADATA_SECRET]);
  expect(record.result.metadata).toEqual({ token: REDACTED, note: `the key was ${REDACTED}`, pages: 3 });
});

test("secrets never stored - a client-executed call: the runtime gets the real secret, and a reported result echoing it (content and metadata) is stored without it", async () => {
  const caller = await agentOn(g.request, ["network"]);
  const bearer = "Bearer sk-live-123456";
  const apiKey = "ak-Client-3131";
  const args = { url: "https://api.example.com/v1/items", headers: { Authorization: bearer, "X-Api-Key": apiKey, Accept: "application/json" } };

  const response = await callTool(g.request, caller, "http_request", args);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toMatchObject({ status: "authorized", arguments: { ...args, method: "GET" } });
  const callId = response.body.callId as string;
  const secrets = ["sk-live-123456", apiKey, "tok-Reported-4141"];

  const waiting = await expectStoredWithout(caller.agent.id, callId, secrets);
  expect(waiting).toMatchObject({ status: "authorized", arguments: { headers: { Authorization: REDACTED, "X-Api-Key": REDACTED, Accept: "application/json" } } });
  const kept = await rawCallRef(callId);
  for (const form of readableForms(kept)) expectNoSecret("the raw CALLREF item", form, secrets);

  const reported = await g.request("POST", `/agents/${caller.agent.id}/calls/${callId}/result`, {
    token: caller.token,
    body: {
      content: `GET https://api.example.com/v1/items with Authorization: ${bearer} and X-Api-Key: ${apiKey} -> 200`,
      type: "text",
      metadata: { apiToken: "tok-Reported-4141", request: { headers: { Authorization: bearer } }, echoed: `key ${apiKey}`, status: 200 },
    },
  });
  expect(reported.status, JSON.stringify(reported.body)).toBe(200);
  expectNoSecret("the answer to POST /result", reported.body, secrets);

  const record = await expectStoredWithout(caller.agent.id, callId, secrets);
  expect(record.status).toBe("completed");
  expect(record.result.content).toBe(`GET https://api.example.com/v1/items with Authorization: ${REDACTED} and X-Api-Key: ${REDACTED} -> 200`);
  expect(record.result.metadata).toEqual({ apiToken: REDACTED, request: { headers: { Authorization: REDACTED } }, echoed: `key ${REDACTED}`, status: 200 });
});

test("secrets never stored - a client-executed call whose runtime echoes only the token of a Bearer header is stored without the token", async () => {
  const caller = await agentOn(g.request, ["network"]);
  const token = "sk-live-987654321";
  const response = await callTool(g.request, caller, "http_request", { url: "https://api.example.com/v1/me", headers: { Authorization: `Bearer ${token}` } });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const callId = response.body.callId as string;

  const reported = await g.request("POST", `/agents/${caller.agent.id}/calls/${callId}/result`, {
    token: caller.token,
    body: { content: `{"authenticatedWith":"${token}","user":"ann"}`, type: "json" },
  });
  expect(reported.status, JSON.stringify(reported.body)).toBe(200);
  await expectStoredWithout(caller.agent.id, callId, [token]);
});

test("secrets never stored - a call awaiting approval keeps its arguments unreadable in the store; once approved the executor gets the real secret", async () => {
  const name = unique("deploy");
  const group = await httpGroup(g.request, g.executor, [policyTool(name, { dangerous: true })]);
  const caller = await agentOn(g.request, [group]);
  const secret = "ak-Approve-4242";
  const args = { target: "prod", apiKey: secret, headers: [{ name: "Authorization", value: "Bearer tok-Approve-4343" }] };
  const secrets = [secret, "tok-Approve-4343"];

  const queued = await callTool(g.request, caller, name, args);
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  expect(queued.body.status).toBe("awaiting_confirmation");
  const callId = queued.body.callId as string;

  const kept = await rawCallRef(callId);
  expect(kept, "the arguments are kept beside the call for the approval").toBeDefined();
  for (const form of readableForms(kept)) expectNoSecret("the raw CALLREF item", form, secrets);
  const waiting = await expectStoredWithout(caller.agent.id, callId, secrets);
  expect(waiting.arguments).toEqual({ target: "prod", apiKey: REDACTED, headers: [{ name: "Authorization", value: REDACTED }] });
  expect(g.executor.requestsFor(name)).toHaveLength(0);

  const approved = await g.request("POST", `/calls/${callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(g.executor.requestsFor(name)).toHaveLength(1);
  expect(g.executor.requestsFor(name)[0]!.body.arguments, "the executor receives the real secret").toEqual(args);

  const record = await expectStoredWithout(caller.agent.id, callId, secrets);
  expect(record).toMatchObject({ status: "completed", approvedBy: "admin" });
  const after = await rawCallRef(callId);
  for (const form of readableForms(after)) expectNoSecret("the raw CALLREF item after approval", form, secrets);
});

test("secrets never stored - an approved client-executed call: the sealed arguments stay unreadable until the runtime reports, and the reported echo is stored without the secret", async () => {
  const name = unique("client_deploy");
  const group = unique("grp");
  const put = await g.request("PUT", `/groups/${group}`, {
    body: { description: "Runs in the agent's runtime.", executor: { type: "client" }, tools: [policyTool(name, { dangerous: true })] },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  const caller = await agentOn(g.request, [group]);
  const secret = "ak-ClientApprove-5151";
  const args = { target: "staging", apiKey: secret };

  const queued = await callTool(g.request, caller, name, args);
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  expect(queued.body.status).toBe("awaiting_confirmation");
  const callId = queued.body.callId as string;

  const approved = await g.request("POST", `/calls/${callId}/approve`);
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(approved.body).toMatchObject({ status: "authorized", arguments: args });
  for (const form of readableForms(await rawCallRef(callId))) expectNoSecret("the raw CALLREF item while the runtime works", form, [secret]);
  expect((await expectStoredWithout(caller.agent.id, callId, [secret])).status).toBe("authorized");

  const reported = await g.request("POST", `/agents/${caller.agent.id}/calls/${callId}/result`, {
    token: caller.token,
    body: { content: `deployed to staging using ${secret}`, metadata: { used: secret } },
  });
  expect(reported.status, JSON.stringify(reported.body)).toBe(200);
  const record = await expectStoredWithout(caller.agent.id, callId, [secret]);
  expect(record.result).toMatchObject({ content: `deployed to staging using ${REDACTED}`, metadata: { used: REDACTED } });
});
