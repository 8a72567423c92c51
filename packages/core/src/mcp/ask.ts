import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type { ArgumentSeal } from "../call/seal";
import type { AnswerInput, AskUserArguments } from "../question/schema";

/** What a question's request state holds, sealed: the call it waits in and the agent that asked (AEAD: tampering opens nothing). */
type QuestionState = { kind: "toolgate/question"; callId: string; agentId: string };

const ANSWER_KEY = "answer";

/** Whether this request's client can put a form to its user in-band: a 2026-07-28 client declaring elicitation (its capabilities ride every request). */
export function canAskItsUser(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return capabilities?.elicitation !== undefined;
}

/** The form the question becomes: its options as an enum (a multi-select with `multiple`), else a text field. */
function answerField({ options, multiple }: AskUserArguments) {
  if (!options) return { type: "string" as const, title: "Answer" };
  if (multiple) return { type: "array" as const, title: "Answer", items: { type: "string" as const, enum: options } };
  return { type: "string" as const, title: "Answer", enum: options };
}

/** The input_required answer that puts an agent's question to its user; the client asks and sends the call again with the answer. */
export function askTheUser(seal: ArgumentSeal, callId: string, agentId: string, asked: AskUserArguments): InputRequiredResult {
  const state: QuestionState = { kind: "toolgate/question", callId, agentId };
  return inputRequired({
    inputRequests: {
      [ANSWER_KEY]: inputRequired.elicit({ message: asked.question, requestedSchema: { type: "object", properties: { answer: answerField(asked) }, required: ["answer"] } }),
    },
    requestState: seal.seal(state),
  });
}

/** The call a retried ask_user answers, from its request state, when that state is toolgate's own and this agent's. */
export function questionAnswered(seal: ArgumentSeal, requestState: unknown, agentId: string): string | undefined {
  if (typeof requestState !== "string") return undefined;
  const state = seal.open(requestState) as Partial<QuestionState> | undefined;
  return state?.kind === "toolgate/question" && state.agentId === agentId && typeof state.callId === "string" ? state.callId : undefined;
}

/** The user's reply as toolgate records answers: accepted (with its answer), declined or cancelled; undefined without one. */
export function userReply(responses: Record<string, unknown> | undefined): AnswerInput | { action: "cancel" } | undefined {
  const view = inputResponse(responses, ANSWER_KEY);
  if (view.kind !== "elicit") return undefined;
  if (view.action !== "accept") return { action: view.action };
  const answer = view.content?.[ANSWER_KEY];
  return { action: "accept", answer: Array.isArray(answer) ? answer.map(String) : String(answer ?? "") };
}
