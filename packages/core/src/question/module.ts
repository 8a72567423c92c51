import { setTimeout as sleep } from "node:timers/promises";
import { retentionExpiry, transitions } from "../call/lifecycle";
import { storedCallArguments } from "../call/redact";
import type { ArgumentSeal } from "../call/seal";
import type { CallRecord } from "../call/schema";
import type { Db } from "../dynamo/client";
import { applyTransition, forgetPendingArguments, getCall, keepPendingCall, putCall } from "../dynamo/calls";
import { questionAsked } from "../events/index";
import type { EventPublisher } from "../events/publisher";
import { loadArgumentValidator } from "../guard/arguments";
import type { GuardSettings } from "../guard/settings";
import { createId } from "../id";
import { ASK_USER, ASKING_GROUP, ModuleQuestion } from "./schema";
import type { Answered } from "./schema";

export type ModuleQuestionDeps = { db: Db; seal: ArgumentSeal; events: EventPublisher; settings: GuardSettings };

/** What a module asks with (MCP elicitation's form-mode params), as toolgate reads them. */
export type FormRequest = { message: string; requestedSchema: Record<string, unknown> };

/** What the module gets back: MCP elicitation's result. */
export type FormReply = { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

/** How often the call waiting on an operator looks at its question, which any instance may have answered. */
const POLL_MS = 1_000;

/** The module's form as a question an operator can answer, if it is one (a form toolgate can check answers against). */
async function questionOf(asking: CallRecord, request: FormRequest): Promise<ModuleQuestion | undefined> {
  const fields = Object.keys((request.requestedSchema?.properties ?? {}) as Record<string, unknown>);
  const question = ModuleQuestion.safeParse({ question: request.message, form: request.requestedSchema, fields, askedFor: asking.callId });
  if (!question.success) return undefined;
  const ajv = await loadArgumentValidator();
  try {
    ajv.compile(question.data.form);
    return question.data;
  } catch {
    return undefined;
  }
}

const replyOf = (record: CallRecord): FormReply => {
  if (record.status !== "completed" || !record.result) return { action: "cancel" };
  const answered = JSON.parse(record.result.content) as Answered;
  return answered.action === "accept" && "content" in answered ? answered : answered.action === "decline" ? answered : { action: "cancel" };
};

/** Looks at the question until it is no longer waiting for an answer, or the signal aborts. */
async function answered(db: Db, question: CallRecord, signal: AbortSignal): Promise<CallRecord> {
  for (;;) {
    await sleep(POLL_MS, undefined, { signal });
    const current = await getCall(db, question.agentId, question.callId);
    if (current && current.status !== "awaiting_answer") return current;
  }
}

/**
 * A module's question (an elicitation form) during a call whose agent's client cannot take it, put to the operators:
 * a question of its own in the questions queue (tool ask_user, `askedFor` the call), announced as question.asked,
 * answered with the form's content or declined. It waits until an operator answers, or until `deadline` (the call's
 * own); if the call ends first, the question is withdrawn from the queue. Undefined when the form is not one toolgate
 * can check an answer against.
 */
export async function askOperators(deps: ModuleQuestionDeps, asking: CallRecord, request: FormRequest, deadline: Date, signal: AbortSignal): Promise<FormReply | undefined> {
  const asked = await questionOf(asking, request);
  if (!asked) return undefined;
  const startedAt = new Date();
  const question: CallRecord = {
    callId: createId("call"),
    agentId: asking.agentId,
    roleId: asking.roleId,
    tool: ASK_USER,
    group: ASKING_GROUP,
    status: "awaiting_answer",
    ...storedCallArguments(asked).stored,
    askedFor: asking.callId,
    startedAt: startedAt.toISOString(),
    deadline: deadline.toISOString(),
  };
  const expiresAt = retentionExpiry(deps.settings, question);
  await keepPendingCall(deps.db, question.callId, question.agentId, deps.seal.seal(asked), expiresAt);
  await putCall(deps.db, question, expiresAt);
  await deps.events.publish(questionAsked(question, asked));
  try {
    return replyOf(await answered(deps.db, question, AbortSignal.any([signal, AbortSignal.timeout(Math.max(0, deadline.getTime() - Date.now()))])));
  } catch (error) {
    await applyTransition(deps.db, transitions.withdrawn(question, new Date()), expiresAt)
      .then((written) => (written.kind === "ok" ? forgetPendingArguments(deps.db, question.callId) : undefined))
      .catch(() => {});
    if (signal.aborted) throw error;
    return { action: "cancel" };
  }
}
