import { Hono } from "hono";
import * as AnswerToken from "@toolgate/core/answer-token";
import { API } from "../routes";
import type { Env } from "../http/app";
import { principalName, requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";

const R = API.execution.answerTokens;

/** Answering tokens: made, listed (never the token itself) and revoked by the admin. */
export const answerTokens = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, query(AnswerToken.AnswerTokenListQuery), async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await AnswerToken.list(c.get("toolgate").db, limit, cursor));
  })
  .on(method(R.create), path(R.create), requireAdmin, json(AnswerToken.AnswerTokenInput, AnswerToken.ANSWER_TOKEN_ERRORS, "invalid_answer_token", "The answering token"), async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await AnswerToken.create(toolgate.db, toolgate.tokens, c.req.valid("json"), principalName(c.get("principal")), toolgate.now()), 201);
  })
  .on(method(R.revoke), path(R.revoke), requireAdmin, async (c) => {
    await AnswerToken.revoke(c.get("toolgate").db, c.req.param("id"));
    return c.body(null, 204);
  });
