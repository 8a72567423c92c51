import * as z from "zod";
import type { AnswerToken } from "../answer-token/schema";

/** The tool an agent asks a person with, in the console group (the group for talking to people); toolgate runs it itself. */
export const ASK_USER = "ask_user";
export const ASKING_GROUP = "console";

/** Whether a tool of a group is ask_user, answered by a person rather than run by the group's executor. */
export const asksPerson = (groupId: string, tool: string) => groupId === ASKING_GROUP && tool === ASK_USER;

export const MAX_OPTIONS = 20;

/** ask_user's arguments: the question, and the answers to choose from (one, or several with `multiple`). */
export const AskUserArguments = z.strictObject({
  question: z.string().min(1).max(2_000).describe("The question, as the person will read it."),
  options: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(MAX_OPTIONS)
    .optional()
    .describe("Answers to choose from; without them the person answers in their own words."),
  multiple: z.boolean().default(false).describe("With options: whether the person may choose several."),
});
export type AskUserArguments = z.infer<typeof AskUserArguments>;

const Text = z.string().trim().min(1).max(10_000);

/** POST /calls/:callId/answer: an answer (an option, several with `multiple`, or words of one's own), or declining to answer. */
export const AnswerInput = z.union([
  z.strictObject({ action: z.literal("accept").default("accept"), answer: z.union([Text, z.array(Text).min(1).max(MAX_OPTIONS)]) }),
  z.strictObject({ action: z.literal("decline") }),
]);
export type AnswerInput = z.infer<typeof AnswerInput>;

/** What the agent receives as ask_user's result: the answer, or that the person declined (MCP elicitation's actions). */
export type Answered = { action: "accept"; answer: string | string[] } | { action: "decline" } | { action: "cancel" };

/** Who answers a question put to the operators: the admin, or an answering token (a chat bot's), named on the record. */
export type Answerer = { kind: "admin" } | { kind: "answerer"; answerToken: AnswerToken };
