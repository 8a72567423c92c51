import { Hono } from "hono";
import * as Call from "@toolgate/core/call";
import { approve, deny, guardedCall, reportResult } from "@toolgate/core/guard";
import * as Question from "@toolgate/core/question";
import { API } from "../routes";
import type { Env } from "../http/app";
import { answererOf, checkQueueAccess, principalName, requireAdmin, requireAdminOrAnswerer, requireAdminOrSelf, requireSelf, requireSelfCached } from "../http/auth";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";
import { agentFor } from "./agents";

const R = API.execution.calls;

export const calls = new Hono<Env>()
  .on(method(R.call), path(R.call), requireSelfCached, json(Call.CallRequest, Call.CALL_ERRORS, "invalid_request", "The call", { depthJudgedByGuard: true }), async (c) => {
    const { status, body } = await guardedCall(c.get("toolgate").guard, c.get("agent"), c.req.valid("json"));
    c.set("callId", body.callId);
    return c.json(body, status);
  })
  .on(method(R.history), path(R.history), requireAdminOrSelf, query(Call.CallHistoryQuery), async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { status, tool, limit, cursor } = c.req.valid("query");
    return c.json(await Call.history(c.get("toolgate").db, agent.id, { status, tool }, limit, cursor));
  })
  .on(method(R.queue), path(R.queue), requireAdminOrAnswerer, query(Call.ApprovalQueueQuery), async (c) => {
    const { status, limit, cursor } = c.req.valid("query");
    checkQueueAccess(c.get("principal"), status);
    return c.json(await Call.awaitingOperator(c.get("toolgate").db, status, limit, cursor));
  })
  .on(method(R.get), path(R.get), requireAdminOrSelf, async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    return c.json(Call.shown(await Call.get(c.get("toolgate").db, agent.id, c.req.param("callId"))));
  })
  .on(method(R.result), path(R.result), requireSelf, json(Call.ClientResult, Call.CALL_ERRORS, "invalid_result", "The tool result"), async (c) =>
    c.json(await reportResult(c.get("toolgate").guard, c.get("agent").id, c.req.param("callId"), c.req.valid("json"), new Date())),
  )
  .on(method(R.approve), path(R.approve), requireAdmin, async (c) =>
    c.json(await approve(c.get("toolgate").guard, c.req.param("callId"), principalName(c.get("principal")), new Date())),
  )
  .on(method(R.deny), path(R.deny), requireAdmin, async (c) =>
    c.json(await deny(c.get("toolgate").guard, c.req.param("callId"), principalName(c.get("principal")), new Date())),
  )
  .on(method(R.answer), path(R.answer), requireAdminOrAnswerer, json(Question.AnswerInput, Question.QUESTION_ERRORS, "invalid_answer", "The answer"), async (c) =>
    c.json(await Question.answerQuestion(c.get("toolgate").guard, c.req.param("callId"), c.req.valid("json"), answererOf(c.get("principal")), new Date())),
  );
