import { tokenRevoked } from "../agent/errors";
import { retentionExpiry, transitions } from "../call/lifecycle";
import type { AnsweredBy } from "../call/lifecycle";
import type { CallRecord, Transition } from "../call/schema";
import { uncontended } from "../contention";
import { applyTransition, applyWhileAnswerTokenHeld, forgetPendingArguments, getCall, getPendingCall } from "../dynamo/calls";
import type { GuardDeps } from "../guard/deps";
import { pendingArguments } from "../guard/approvals";
import { describeArgumentErrors, loadArgumentValidator } from "../guard/arguments";
import { questionError } from "./errors";
import { Question } from "./schema";
import type { Answered, Answerer, AnswerInput, AskUserArguments, ModuleQuestion } from "./schema";

const notFound = (callId: string) => questionError("question_not_found", `There is no question "${callId}": no ask_user call of that id awaits an answer.`);

const notAwaiting = (record: CallRecord) =>
  questionError(
    "not_awaiting_answer",
    record.status === "cancelled"
      ? `The question "${record.callId}" was withdrawn: its agent "${record.agentId}" was terminated.`
      : `The question "${record.callId}" is not awaiting an answer: it is ${record.status}.`,
    { callId: record.callId, status: record.status },
  );

const quoted = (options: readonly string[]) => options.map((option) => JSON.stringify(option)).join(", ");

/** A module's form filled in, if every field fits the form (checked as a tool's arguments are, against its schema). */
async function formAnswer(asked: ModuleQuestion, input: AnswerInput): Promise<Answered> {
  if (input.action === "decline") return input;
  if (!("content" in input)) throw questionError("invalid_answer", "This question is a module's form: answer it with content, a value for each of its fields.", { form: asked.form });
  const ajv = await loadArgumentValidator();
  const check = ajv.compile(asked.form);
  if (!check(structuredClone(input.content))) {
    const problems = describeArgumentErrors(check.errors ?? []).map((issue) => `${issue.path} ${issue.message}`);
    throw questionError("invalid_answer", `The answer does not fill in the form: ${problems.join("; ")}.`, { form: asked.form });
  }
  return { action: "accept", content: input.content };
}

/** The answer as the asker receives it, if it fits the question (an agent's ask_user, or a module's form). */
export async function answerTo(asked: Question, input: AnswerInput): Promise<Answered> {
  return "form" in asked ? formAnswer(asked, input) : answerToAgent(asked, input);
}

/** An agent's question answered: one of its options (several if `multiple`), or words of one's own. */
function answerToAgent(asked: AskUserArguments, input: AnswerInput): Answered {
  if (input.action === "decline") return input;
  if (!("answer" in input)) throw questionError("invalid_answer", "Answer an agent's question with answer: one of its options, or text.");
  const { options, multiple } = asked;
  const chosen = Array.isArray(input.answer) ? input.answer : [input.answer];
  if (!options) {
    if (Array.isArray(input.answer)) throw questionError("invalid_answer", "The question has no options to choose from: answer it with text.");
    return { action: "accept", answer: input.answer };
  }
  const unknown = chosen.filter((answer) => !options.includes(answer));
  if (unknown.length) throw questionError("invalid_answer", `${quoted(unknown)} is not one of the question's options: choose from ${quoted(options)}.`, { options });
  if (new Set(chosen).size !== chosen.length) throw questionError("invalid_answer", "Choose each option once.", { options });
  if (!multiple && chosen.length > 1) throw questionError("invalid_answer", `The question takes one answer: choose one of ${quoted(options)}.`, { options });
  return { action: "accept", answer: multiple ? chosen : chosen[0]! };
}

/** The question as asked, from the arguments kept (sealed) beside it. */
async function awaitingQuestion(deps: GuardDeps, callId: string) {
  const pending = await getPendingCall(deps.db, callId);
  if (!pending) throw notFound(callId);
  const record = await getCall(deps.db, pending.agentId, callId);
  if (!record) throw notFound(callId);
  if (record.status !== "awaiting_answer") throw notAwaiting(record);
  const asked = Question.safeParse(pendingArguments(deps, pending));
  if (!asked.success) throw notFound(callId);
  return { record, asked: asked.data };
}

/** Who gave an answer: an operator (the admin or an answering token), or the agent's own user through its MCP client. */
type Respondent = Answerer | { kind: "user" };

const recordedAs = (who: Respondent): AnsweredBy =>
  who.kind === "answerer" ? { answeredBy: who.answerToken.id, answeredByName: who.answerToken.name } : { answeredBy: who.kind };

/** The answer's write: given with an answering token, it lands only while the token is not revoked. */
async function writeAnswer(deps: GuardDeps, transition: Transition, expiresAt: number, who: Respondent) {
  if (who.kind !== "answerer") return applyTransition(deps.db, transition, expiresAt);
  const written = await applyWhileAnswerTokenHeld(deps.db, { ...transition, from: "awaiting_answer" }, expiresAt, who.answerToken.id);
  if (written.kind === "token_revoked") throw tokenRevoked();
  return written;
}

/** Records an answer to a question read as awaiting it, once: whoever answers first wins, later answers hear what it is now. */
async function recordAnswer(deps: GuardDeps, record: CallRecord, answered: Answered, who: Respondent, now: Date): Promise<CallRecord> {
  const transition = transitions.answered(record, { type: "json", content: JSON.stringify(answered) }, recordedAs(who), now);
  const written = await uncontended(deps.db.contentionDeadlineMs, () => writeAnswer(deps, transition, retentionExpiry(deps.settings, record), who));
  if (written.kind === "moved") throw notAwaiting(written.current ?? record);
  await forgetPendingArguments(deps.db, record.callId);
  return transition.to;
}

/**
 * A person's answer to an agent's question (or their declining it): checked against the question's options, recorded
 * as the call's result once, however many answers arrive together; the call completes and the agent reads the answer.
 * The record names who answered: the admin, or the answering token (its id and name).
 */
export async function answerQuestion(deps: GuardDeps, callId: string, input: AnswerInput, answerer: Answerer, now: Date): Promise<CallRecord> {
  const { record, asked } = await awaitingQuestion(deps, callId);
  return recordAnswer(deps, record, await answerTo(asked, input), answerer, now);
}

/** The answer of the agent's own user, which its MCP client carried back: for that agent's own question only. */
export async function answerOwnQuestion(deps: GuardDeps, agentId: string, callId: string, reply: AnswerInput | { action: "cancel" }, now: Date): Promise<CallRecord> {
  const { record, asked } = await awaitingQuestion(deps, callId);
  if (record.agentId !== agentId) throw notFound(callId);
  return recordAnswer(deps, record, reply.action === "cancel" ? reply : await answerTo(asked, reply), { kind: "user" }, now);
}
