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

/**
 * A question an MCP module asks during a call (an elicitation form) that the agent's client cannot take, put to an
 * operator: the form as the module gave it (MCP's requestedSchema, a flat object of primitive fields), and the call
 * it waits in. A question for a secret (URL mode) is never one: it goes to the agent's own client or nowhere.
 */
export const ModuleQuestion = z.strictObject({
  question: z.string().min(1).max(2_000),
  form: z.looseObject({ type: z.literal("object"), properties: z.record(z.string(), z.looseObject({})), required: z.array(z.string()).optional() }),
  /** The form's fields in the order the module gave them: the stored copy of the form keeps no order. */
  fields: z.array(z.string()),
  askedFor: z.string(),
});
export type ModuleQuestion = z.infer<typeof ModuleQuestion>;

/** A question as it was put to a person: an agent's (ask_user) or a module's form. */
export const Question = z.union([AskUserArguments, ModuleQuestion]);
export type Question = z.infer<typeof Question>;

const Text = z.string().trim().min(1).max(10_000);
const FieldValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/**
 * POST /calls/:callId/answer: an answer (an option, several with `multiple`, or words of one's own), a module's form
 * filled in (`content`, a value per field), or declining to answer.
 */
export const AnswerInput = z.union([
  z.strictObject({ action: z.literal("accept").default("accept"), answer: z.union([Text, z.array(Text).min(1).max(MAX_OPTIONS)]) }),
  z.strictObject({ action: z.literal("accept").default("accept"), content: z.record(z.string(), FieldValue) }),
  z.strictObject({ action: z.literal("decline") }),
]);
export type AnswerInput = z.infer<typeof AnswerInput>;

/** What the asker receives: the answer (a module's form: its content), or that the person declined or cancelled (MCP elicitation's actions). */
export type Answered =
  | { action: "accept"; answer: string | string[] }
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/** Who answers a question put to the operators: the admin, or an answering token (a chat bot's), named on the record. */
export type Answerer = { kind: "admin" } | { kind: "answerer"; answerToken: AnswerToken };
