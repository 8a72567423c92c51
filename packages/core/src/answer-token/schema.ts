import * as z from "zod";
import { PageQuery } from "../call/schema";

/**
 * A named token that answers agents' questions and nothing else (a chat bot on the bus holds one instead of the admin
 * token). Only this is stored: the token itself is signed, shown once and never kept.
 */
export const AnswerToken = z.object({
  id: z.string(),
  name: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type AnswerToken = z.infer<typeof AnswerToken>;

/** POST /answer-tokens: what the token is called, so answers name who gave them. */
export const AnswerTokenInput = z.strictObject({
  name: z.string().trim().min(1).max(100).describe("Who holds the token, as answers will name it (e.g. the chat bot)."),
});
export type AnswerTokenInput = z.infer<typeof AnswerTokenInput>;

/** GET /answer-tokens: a page of them, newest first. */
export const AnswerTokenListQuery = PageQuery;
