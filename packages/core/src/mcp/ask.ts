import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type { ArgumentSeal } from "../call/seal";
import type { DeclaredClient } from "./handshake";
import type { AnswerInput, AskUserArguments } from "../question/schema";

/** What a question's request state holds, sealed: the call it waits in and the agent that asked (AEAD: tampering opens nothing). */
type QuestionState = { kind: "toolgate/question"; callId: string; agentId: string };

const ANSWER_KEY = "answer";

/**
 * How an ask_user call can reach the agent's own user, if it can: a 2026-07-28 client declaring elicitation (its
 * capabilities ride every request) through the input round trip; a 2025-era client that declared it at its handshake
 * through a request on the call's response, where responses stream. Otherwise the question goes to an operator.
 */
export type AskingRoute = "input_required" | "stream";

export function askingRoute(envelope: unknown, streams: boolean, client: DeclaredClient | undefined): AskingRoute | undefined {
  if (envelope !== undefined) {
    const capabilities = (envelope as Record<string, { elicitation?: unknown } | undefined>)[CLIENT_CAPABILITIES_META_KEY];
    return capabilities?.elicitation !== undefined ? "input_required" : undefined;
  }
  return streams && client?.elicitation?.form ? "stream" : undefined;
}

/** The form the question becomes: its options as an enum (a multi-select with `multiple`), else a text field. */
function answerField({ options, multiple }: AskUserArguments) {
  if (!options) return { type: "string" as const, title: "Answer" };
  if (multiple) return { type: "array" as const, title: "Answer", items: { type: "string" as const, enum: options } };
  return { type: "string" as const, title: "Answer", enum: options };
}

/** The question as an elicitation form: one field, its answer. */
export const questionForm = (asked: AskUserArguments) => ({
  message: asked.question,
  requestedSchema: { type: "object" as const, properties: { [ANSWER_KEY]: answerField(asked) }, required: [ANSWER_KEY] },
});

/** The input_required answer that puts an agent's question to its user; the client asks and sends the call again with the answer. */
export function askTheUser(seal: ArgumentSeal, callId: string, agentId: string, asked: AskUserArguments): InputRequiredResult {
  const state: QuestionState = { kind: "toolgate/question", callId, agentId };
  return inputRequired({ inputRequests: { [ANSWER_KEY]: inputRequired.elicit(questionForm(asked)) }, requestState: seal.seal(state) });
}

/** The call a retried ask_user answers, from its request state, when that state is toolgate's own and this agent's. */
export function questionAnswered(seal: ArgumentSeal, requestState: unknown, agentId: string): string | undefined {
  if (typeof requestState !== "string") return undefined;
  const state = seal.open(requestState) as Partial<QuestionState> | undefined;
  return state?.kind === "toolgate/question" && state.agentId === agentId && typeof state.callId === "string" ? state.callId : undefined;
}

export type UserReply = AnswerInput | { action: "cancel" };

/** A form's reply (an elicitation's result) as toolgate records answers: accepted (with its answer), declined or cancelled. */
export function formReply(result: { action?: unknown; content?: Record<string, unknown> }): UserReply | undefined {
  if (result.action === "decline" || result.action === "cancel") return { action: result.action };
  if (result.action !== "accept") return undefined;
  const answer = result.content?.[ANSWER_KEY];
  return { action: "accept", answer: Array.isArray(answer) ? answer.map(String) : String(answer ?? "") };
}

/** The user's reply in a retried request's input responses; undefined without one. */
export function userReply(responses: Record<string, unknown> | undefined): UserReply | undefined {
  const view = inputResponse(responses, ANSWER_KEY);
  return view.kind === "elicit" ? formReply(view) : undefined;
}
