import { beforeAll, expect, test } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { TokenSigner } from "@toolgate/core/agent";
import * as Question from "@toolgate/core/question";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, ADMIN_TOKEN, SIGNING_KEY, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, putGroup, secondInstance, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

type Issued = { id: string; name: string; createdBy: string; createdAt: string; token: string };

async function answerToken(name = unique("chat-bot")): Promise<Issued> {
  const response = await request("POST", "/answer-tokens", { body: { name } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Issued;
}

async function asker() {
  const role = await createRole(request, { name: unique("asker"), toolGroups: ["console"] });
  return createAgent(request, role.id, { name: unique("asker") });
}

async function question(agent: Awaited<ReturnType<typeof asker>>, options = ["yes", "no"]) {
  const response = await request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "ask_user", arguments: { question: `Ship ${unique("release")}?`, options } } });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  return response.body.callId as string;
}

const answer = (callId: string, body: unknown, token: string, on: Api = request) => on("POST", `/calls/${callId}/answer`, { body, token });
const queued = async (token: string, on: Api = request) => (await on("GET", "/calls?status=awaiting_answer", { token })).body.calls.map((call: { callId: string }) => call.callId) as string[];

test("POST /answer-tokens - the admin makes a named token, shown once; the list names it and never holds the token, nor does the store", async () => {
  const name = unique("slack-bot");
  const issued = await answerToken(`  ${name}  `);
  expect(issued).toEqual({ id: expect.stringMatching(/^atk_/), name, createdBy: "admin", createdAt: expect.any(String), token: expect.any(String) });

  const listed = await request("GET", "/answer-tokens");
  expect(listed.status).toBe(200);
  expect(listed.body.answerTokens[0]).toEqual({ id: issued.id, name, createdBy: "admin", createdAt: issued.createdAt });
  expect(JSON.stringify(listed.body)).not.toContain(issued.token);

  const { Item } = await toolgate.db.doc.send(new GetCommand({ TableName: toolgate.db.table, Key: { pk: `ANSWERTOKEN#${issued.id}`, sk: "ANSWERTOKEN" }, ConsistentRead: true }));
  expect(Item?.answerToken).toEqual({ id: issued.id, name, createdBy: "admin", createdAt: issued.createdAt });
  expect(JSON.stringify(Item)).not.toContain(issued.token);
});

test("GET /answer-tokens - newest first, paged with a cursor", async () => {
  const made = [await answerToken(), await answerToken(), await answerToken()];
  const first = await request("GET", "/answer-tokens?limit=2");
  expect(first.body.answerTokens.map((token: { id: string }) => token.id)).toEqual([made[2]!.id, made[1]!.id]);
  const next = await request("GET", `/answer-tokens?limit=2&cursor=${first.body.nextCursor}`);
  expect(next.body.answerTokens[0].id).toBe(made[0]!.id);
});

test("POST /calls/:callId/answer - an answering token reads the questions queue and answers; the record and its answer name the token", async () => {
  const bot = await answerToken();
  const agent = await asker();
  const callId = await question(agent);
  expect(await queued(bot.token)).toContain(callId);

  const answered = await answer(callId, { answer: "yes" }, bot.token);
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  expect(answered.body).toMatchObject({ status: "completed", answeredBy: bot.id, answeredByName: bot.name, result: { content: '{"action":"accept","answer":"yes"}' } });
  const record = await request("GET", `/agents/${agent.agent.id}/calls/${callId}`, { token: agent.token });
  expect(record.body).toMatchObject({ status: "completed", answeredBy: bot.id, answeredByName: bot.name });
  expect(JSON.stringify(record.body)).not.toContain(bot.token);

  expect((await answer(callId, { answer: "no" }, bot.token)).body).toMatchObject({ error: "not_awaiting_answer", status: "completed" });
  const invalid = await answer(await question(agent), { answer: "maybe" }, bot.token);
  expect(invalid.status).toBe(400);
  expect(invalid.body.error).toBe("invalid_answer");

  const byAdmin = await answer(await question(agent), { action: "decline" }, ADMIN_TOKEN);
  expect(byAdmin.body.answeredBy).toBe("admin");
  expect(byAdmin.body).not.toHaveProperty("answeredByName");
});

test("an answering token - approvals, admin routes, agents' routes, tool calls and /mcp are 403 forbidden with a sentence saying what it may do", async () => {
  const bot = await answerToken();
  const agent = await asker();
  const group = unique("dangerous");
  const risky = unique("risky_tool");
  await putGroup(request, group, { description: "Risky.", executor: { type: "client" }, tools: [{ ...tool(risky), "x-toolgate": { requireConfirmation: true } }] });
  const role = await createRole(request, { name: unique("risky"), toolGroups: [group] });
  const caller = await createAgent(request, role.id);
  const waiting = await request("POST", `/agents/${caller.agent.id}/calls`, { token: caller.token, body: { tool: risky, arguments: {} } });
  expect(waiting.body.status).toBe("awaiting_confirmation");

  const refused: Array<[string, string, unknown?]> = [
    ["GET", "/calls?status=awaiting_confirmation"],
    ["POST", `/calls/${waiting.body.callId}/approve`],
    ["POST", `/calls/${waiting.body.callId}/deny`],
    ["GET", "/answer-tokens"],
    ["POST", "/answer-tokens", { name: "another" }],
    ["DELETE", `/answer-tokens/${bot.id}`],
    ["GET", "/groups"],
    ["GET", "/roles"],
    ["POST", "/roles", { name: unique("r") }],
    ["GET", "/agents"],
    ["POST", "/agents", { roleId: role.id }],
    ["DELETE", `/agents/${agent.agent.id}`],
    ["GET", `/agents/${agent.agent.id}`],
    ["GET", `/agents/${agent.agent.id}/calls`],
    ["GET", `/agents/${agent.agent.id}/tools`],
    ["POST", `/agents/${agent.agent.id}/calls`, { tool: "ask_user", arguments: { question: "Me?" } }],
    ["GET", "/policies"],
    ["PATCH", `/tools/${risky}/policy`, { requireConfirmation: false }],
    ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
  ];
  for (const [method, path, body] of refused) {
    const response = await request(method, path, { token: bot.token, body, headers: { accept: "application/json, text/event-stream" } });
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(403);
    expect(response.body.error).toBe("forbidden");
    expect(response.body.message, `${method} ${path}`).toMatch(/answering token/);
  }
  expect((await request("GET", `/agents/${caller.agent.id}/calls/${waiting.body.callId}`)).body.status).toBe("awaiting_confirmation");
  expect((await request("GET", `/tools/${risky}`)).body.policy.requireConfirmation).toBe(true);
  expect((await request("GET", `/agents/${agent.agent.id}`)).body.status).toBe("active");
  expect((await request("GET", "/answer-tokens")).body.answerTokens.map((token: { id: string }) => token.id)).toContain(bot.id);
});

test("DELETE /answer-tokens/:id - a revoked token is refused at once, on an instance that had used it too; it leaves the list; again is 404", async () => {
  const bot = await answerToken();
  const other = await secondInstance(toolgate);
  const elsewhere = api(other);
  const agent = await asker();
  const first = await question(agent);
  expect(await queued(bot.token, elsewhere)).toContain(first);
  const second = await question(agent);

  expect((await request("DELETE", `/answer-tokens/${bot.id}`)).status).toBe(204);
  for (const on of [request, elsewhere]) {
    const refused = await answer(second, { answer: "yes" }, bot.token, on);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: "unauthenticated", message: "The token has been revoked." });
    expect((await on("GET", "/calls?status=awaiting_answer", { token: bot.token })).status).toBe(401);
  }
  expect((await request("GET", `/agents/${agent.agent.id}/calls/${second}`)).body.status).toBe("awaiting_answer");
  expect((await request("GET", "/answer-tokens")).body.answerTokens.map((token: { id: string }) => token.id)).not.toContain(bot.id);

  const again = await request("DELETE", `/answer-tokens/${bot.id}`);
  expect(again.status).toBe(404);
  expect(again.body.error).toBe("answer_token_not_found");
});

test("answerQuestion - an answer already past authentication when its token is revoked does not land", async () => {
  const bot = await answerToken();
  const agent = await asker();
  const callId = await question(agent);
  const principal = await toolgate.auth.tokens.verify(bot.token);
  expect(principal).toEqual({ kind: "answerer", answerTokenId: bot.id });
  const answerer: Question.Answerer = { kind: "answerer", answerToken: { id: bot.id, name: bot.name, createdBy: bot.createdBy, createdAt: bot.createdAt } };

  expect((await request("DELETE", `/answer-tokens/${bot.id}`)).status).toBe(204);
  await expect(Question.answerQuestion(toolgate.guard, callId, { action: "accept", answer: "yes" }, answerer, new Date())).rejects.toMatchObject({ code: "unauthenticated", status: 401 });
  expect((await request("GET", `/agents/${agent.agent.id}/calls/${callId}`)).body.status).toBe("awaiting_answer");
  expect((await answer(callId, { answer: "no" }, ADMIN_TOKEN)).body).toMatchObject({ status: "completed", answeredBy: "admin" });
});

test("answering tokens - bad input is 400 with a sentence, an unknown id 404, and a token toolgate did not sign 401", async () => {
  for (const body of [undefined, {}, { name: "" }, { name: "   " }, { name: 5 }, { name: "x".repeat(101) }, { name: "bot", scope: "all" }]) {
    const response = await request("POST", "/answer-tokens", { body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.error).toBe("invalid_answer_token");
    expect(response.body.message).toMatch(/^The answering token/);
  }
  expect((await request("POST", "/answer-tokens", { rawBody: "{" })).body.error).toBe("invalid_json");
  expect((await request("GET", "/answer-tokens?limit=0")).body.error).toBe("invalid_query");
  expect((await request("GET", "/answer-tokens?cursor=nonsense")).body.error).toBe("invalid_cursor");
  const missing = await request("DELETE", "/answer-tokens/atk_missing");
  expect(missing.status).toBe(404);
  expect(missing.body.message).toContain('"atk_missing"');

  const agent = await asker();
  const callId = await question(agent);
  const forged = await new TokenSigner(`${SIGNING_KEY}-but-another-one`).signAnswerer({ answerTokenId: (await answerToken()).id });
  const never = await new TokenSigner(SIGNING_KEY).signAnswerer({ answerTokenId: "atk_never_made" });
  for (const token of [forged, never]) {
    const response = await answer(callId, { answer: "yes" }, token);
    expect(response.status).toBe(401);
    expect(response.body.error).toBe("unauthenticated");
  }
});
