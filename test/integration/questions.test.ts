import { beforeAll, expect, test } from "vitest";
import { RecordingPublisher } from "@toolgate/core/events";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const events = new RecordingPublisher();

beforeAll(async () => {
  toolgate = await testToolgate({ events });
  request = api(toolgate);
});

type Issued = Awaited<ReturnType<typeof createAgent>>;

async function asker(extra: Record<string, unknown> = {}) {
  const role = await createRole(request, { name: unique("asker"), toolGroups: ["console"] });
  return createAgent(request, role.id, { name: unique("asker"), ...extra });
}

const ask = (agent: Issued, args: Record<string, unknown>) => request("POST", `/agents/${agent.agent.id}/calls`, { token: agent.token, body: { tool: "ask_user", arguments: args } });

async function asked(agent: Issued, args: Record<string, unknown>) {
  const response = await ask(agent, args);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toMatchObject({ status: "awaiting_answer", tool: "ask_user" });
  return response.body as { callId: string; deadline: string; startedAt: string };
}

const record = (agent: Issued, callId: string) => request("GET", `/agents/${agent.agent.id}/calls/${callId}`, { token: agent.token });
const answer = (callId: string, body: unknown, token?: string) => request("POST", `/calls/${callId}/answer`, { body, ...(token ? { token } : {}) });

test("ask_user - the question waits in the questions queue (not the approvals), is announced, and the chosen option comes back to the agent as its result", async () => {
  const agent = await asker();
  const listed = await request("GET", `/agents/${agent.agent.id}/tools`, { token: agent.token });
  expect(listed.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["console_print", "ask_user"]);

  const question = await asked(agent, { question: "Deploy to production now?", options: ["yes", "no", "tomorrow"] });
  const queue = await request("GET", "/calls?status=awaiting_answer");
  expect(queue.status).toBe(200);
  const queued = queue.body.calls.find((call: { callId: string }) => call.callId === question.callId);
  expect(queued).toMatchObject({ status: "awaiting_answer", agentName: agent.agent.name, arguments: { question: "Deploy to production now?", options: ["yes", "no", "tomorrow"] }, deadline: question.deadline });
  expect((await request("GET", "/calls?status=awaiting_confirmation")).body.calls.map((call: { callId: string }) => call.callId)).not.toContain(question.callId);
  expect(events.of("question.asked").find((event) => event.callId === question.callId)).toEqual({
    callId: question.callId,
    agentId: agent.agent.id,
    roleId: agent.agent.roleId,
    question: "Deploy to production now?",
    options: ["yes", "no", "tomorrow"],
    multiple: false,
    startedAt: question.startedAt,
    deadline: question.deadline,
    answer: `/calls/${question.callId}/answer`,
  });

  const wrong = await answer(question.callId, { answer: "maybe" });
  expect(wrong.status).toBe(400);
  expect(wrong.body).toMatchObject({ error: "invalid_answer", options: ["yes", "no", "tomorrow"] });
  expect(wrong.body.message).toContain('"maybe" is not one of the question\'s options');
  expect((await answer(question.callId, { answer: ["yes", "no"] })).body.error).toBe("invalid_answer");
  expect((await answer(question.callId, { answer: "yes" }, agent.token)).status).toBe(403);

  const answered = await answer(question.callId, { answer: "tomorrow" });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  expect(answered.body).toMatchObject({ status: "completed", answeredBy: "admin", result: { type: "json", content: JSON.stringify({ action: "accept", answer: "tomorrow" }) } });
  expect((await record(agent, question.callId)).body).toMatchObject({ status: "completed", result: { content: '{"action":"accept","answer":"tomorrow"}' } });
  const again = await answer(question.callId, { answer: "yes" });
  expect(again.status).toBe(409);
  expect(again.body.error).toBe("not_awaiting_answer");
  expect((await request("GET", "/calls?status=awaiting_answer")).body.calls.map((call: { callId: string }) => call.callId)).not.toContain(question.callId);
});

test("ask_user - several options with multiple, words of one's own without options, and declining", async () => {
  const agent = await asker();
  const several = await asked(agent, { question: "Which regions?", options: ["eu", "us", "ap"], multiple: true });
  expect((await answer(several.callId, { answer: ["eu", "eu"] })).body.error).toBe("invalid_answer");
  expect((await answer(several.callId, { answer: ["ap", "eu"] })).body.result.content).toBe('{"action":"accept","answer":["ap","eu"]}');

  const open = await asked(agent, { question: "What should the release be called?" });
  expect((await answer(open.callId, { answer: ["a", "b"] })).body.error).toBe("invalid_answer");
  expect((await answer(open.callId, { answer: "  Aurora  " })).body.result.content).toBe('{"action":"accept","answer":"Aurora"}');

  const declined = await asked(agent, { question: "Share the root password?" });
  expect((await answer(declined.callId, { action: "decline" })).body).toMatchObject({ status: "completed", result: { content: '{"action":"decline"}' } });

  const bad = await answer(unique("call"), { answer: "x" });
  expect(bad.status).toBe(404);
  expect(bad.body.error).toBe("question_not_found");
  expect((await answer(declined.callId, { answer: 5 })).status).toBe(400);
  expect((await ask(agent, { question: "" })).body.error).toBe("invalid_arguments");
});

test("ask_user - an unanswered question expires at its deadline, and a terminated agent's question is withdrawn", async () => {
  const agent = await asker();
  const late = await asked(agent, { question: "Still there?" });
  await toolgate.cleanup(new Date(Date.parse(late.deadline) + 6_000));
  expect((await record(agent, late.callId)).body).toMatchObject({ status: "expired", error: { code: "question_expired" } });
  expect((await answer(late.callId, { answer: "yes" })).body).toMatchObject({ error: "not_awaiting_answer", status: "expired" });

  const other = await asker();
  const open = await asked(other, { question: "Keep going?" });
  expect((await request("DELETE", `/agents/${other.agent.id}`)).body.cancelledCalls).toBe(1);
  const withdrawn = (await request("GET", `/agents/${other.agent.id}/calls/${open.callId}`)).body;
  expect(withdrawn).toMatchObject({ status: "cancelled", error: { code: "agent_terminated" } });
  expect((await request("GET", "/calls?status=awaiting_answer")).body.calls.map((call: { callId: string }) => call.callId)).not.toContain(open.callId);
});

test("ask_user - a policy that asks first puts the question behind an approval; approved, it waits for its answer", async () => {
  const agent = await asker();
  const policy = unique("ask-first");
  const put = await request("PUT", `/policies/${policy}`, {
    body: { scope: `agent:${agent.agent.id}`, cedar: `@effect("ask")\npermit (principal, action == Action::"ask_user", resource);` },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  const waiting = await ask(agent, { question: "May I?", options: ["yes", "no"] });
  expect(waiting.body.status).toBe("awaiting_confirmation");
  const approved = await request("POST", `/calls/${waiting.body.callId}/approve`);
  expect(approved.body, JSON.stringify(approved.body)).toMatchObject({ status: "awaiting_answer", tool: "ask_user" });
  expect(events.of("question.asked").map((event) => event.callId)).toContain(waiting.body.callId);
  expect((await answer(waiting.body.callId, { answer: "no" })).body.result.content).toBe('{"action":"accept","answer":"no"}');
  expect((await request("DELETE", `/policies/${policy}`)).status).toBe(204);
});

test("ask_user - no department or agent may bring its own ask_user", async () => {
  const agent = await asker();
  const refused = await request("PUT", `/groups/${unique("mine")}`, {
    body: {
      description: "Mine.",
      scope: `agent:${agent.agent.id}`,
      executor: { type: "client" },
      tools: [{ type: "function", function: { name: "ask_user", description: "Ask.", parameters: { type: "object", properties: {} } } }],
    },
  });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toBe("reserved_tool_name");
});
