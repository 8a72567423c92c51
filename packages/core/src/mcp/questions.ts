import type { CallToolResult } from "@modelcontextprotocol/server";
import * as Call from "../call/index";
import type { Agent } from "../agent/schema";
import { StoreUnavailableError, ToolgateError } from "../error";
import type { CallRelay } from "../executor/relay";
import type { GuardDeps } from "../guard/index";
import { answerOwnQuestion } from "../question/answer";
import { AskUserArguments } from "../question/schema";
import { askTheUser, formReply, questionForm, userReply } from "./ask";
import type { UserReply } from "./ask";
import { completed, notAnswered, refused } from "./results";
import type { WaitingCall } from "./results";

/** Whose question: the agent that asked it, and what serves it. */
type Asker = { deps: GuardDeps; agent: Agent };

/**
 * What a user's reply to a question makes of the call: its result once the answer is recorded, or undefined to ask
 * again (no usable reply, or an answer the question does not take). A question answered already (a retry, or an
 * operator first) returns how it ended.
 */
async function settleQuestion({ deps, agent }: Asker, callId: string, reply: UserReply | undefined): Promise<CallToolResult | undefined> {
  if (!reply) return undefined;
  try {
    const record = await answerOwnQuestion(deps, agent.id, callId, reply, new Date());
    return completed(callId, record.result!);
  } catch (error) {
    if (error instanceof ToolgateError && error.code === "invalid_answer") return undefined;
    if (error instanceof ToolgateError && error.code === "not_awaiting_answer") {
      const record = await Call.get(deps.db, agent.id, callId);
      return record.result ? completed(callId, record.result) : refused(error);
    }
    if (error instanceof ToolgateError) return refused(error);
    throw error;
  }
}

/** An ask_user call sent again with its user's answer (2026-07-28's input round trip). */
export async function resumeQuestion(caller: Asker, callId: string, args: Record<string, unknown>, responses: Record<string, unknown> | undefined) {
  return (await settleQuestion(caller, callId, userReply(responses))) ?? askTheUser(caller.deps.seal, callId, caller.agent.id, AskUserArguments.parse(args));
}

/**
 * An ask_user call of a 2025-era client on a streaming response: the form is put to the client on the call's own
 * response until its user gives an answer the question takes. Past the question's deadline, or if the client cannot
 * be asked after all, the call answers as a waiting one (the question lapses at its deadline).
 */
export async function askOverStream(caller: Asker, relay: CallRelay, waiting: WaitingCall, asked: AskUserArguments): Promise<CallToolResult> {
  const signal = AbortSignal.timeout(Math.max(0, Date.parse(waiting.body.deadline) - Date.now()));
  try {
    for (;;) {
      const settled = await settleQuestion(caller, waiting.body.callId, formReply(await relay.request("elicitation/create", questionForm(asked), signal)));
      if (settled) return settled;
    }
  } catch (error) {
    if (error instanceof ToolgateError || error instanceof StoreUnavailableError) throw error;
    return notAnswered(caller.agent.id, waiting, error instanceof Error && !signal.aborted ? error.message : undefined);
  }
}

