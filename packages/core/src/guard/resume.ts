import type { Agent } from "../agent/schema";
import { DEADLINE_GRACE_MS, retentionExpiry, transitions } from "../call/lifecycle";
import { redactArguments, storedError } from "../call/redact";
import type { CallRecord, CallRequest } from "../call/schema";
import * as Call from "../call/index";
import { uncontended } from "../contention";
import { ToolgateError } from "../error";
import { applyTransition, claimInputRound } from "../dynamo/calls";
import { argumentsHash, timedOut } from "../executor/index";
import type { InputAnswers } from "../executor/index";
import { throughCallTool } from "./call-tool";
import type { GuardDeps } from "./deps";
import { guardError, namingCall } from "./errors";
import { freshView } from "./index";
import type { CallOptions, GuardedCallResponse } from "./index";
import { plan } from "./plan";
import { runAndSettle } from "./run";

/**
 * A call paused while its agent's own client answers what the tool's MCP server asked (MCP 2026-07-28's input round
 * trip), as its sealed request state names it: the call, the tool and arguments it was asked with (their hash; call_tool
 * names its tool in them), which pause this is, how long its tool had run, and the server's own request state, or the
 * call held open by the instance that paused it (a 2025-era server waiting on its request: executor/held.ts).
 */
export type PausedCall = { callId: string; tool: string; argumentsHash: string; round: number; ranMs: number; requestState?: string; held?: string };

const notThePausedCall = (callId: string) =>
  guardError(
    "not_the_paused_call",
    `This request goes on with the paused call "${callId}", but names another tool or other arguments: send the call again exactly as it was, with the answers.`,
    { callId, recoverable: true },
  );

/** How a call that is no longer paused ended, as the answer to a request that would take it on. */
function ended(record: CallRecord): GuardedCallResponse {
  if ((record.status === "completed" || record.status === "error") && record.result)
    return { status: 200, body: { callId: record.callId, status: record.status, result: { content: record.result.content, type: record.result.type } } };
  const { code, message } = record.error ?? { code: "call_already_answered", message: `The call "${record.callId}" is ${record.status}.` };
  throw new ToolgateError(409, code, message, { callId: record.callId });
}

/** Settles a paused call the guard no longer lets go on (its tool taken away, or now needing an approval), and says why. */
async function refuseToGoOn(deps: GuardDeps, record: CallRecord, paused: PausedCall, error: ToolgateError, args: Record<string, unknown>): Promise<never> {
  const settled = transitions.settled(record, { error: { status: 403, ...storedError(error, redactArguments(args).secrets) } }, paused.ranMs, new Date());
  await uncontended(deps.db.contentionDeadlineMs, () => applyTransition(deps.db, settled, retentionExpiry(deps.settings, record)));
  throw namingCall(error, record.callId);
}

/**
 * Takes a paused call on with its agent's client's answers: the same tool and arguments, from the same agent (its token
 * still current), whose tool it may still call from the same group without an approval, before the call's deadline;
 * each pause goes on once (a second request with the same answers gets how the call went, or 409). The call runs
 * on within what is left of its timeout, and may pause again.
 */
export async function goOn(
  deps: GuardDeps,
  caller: Agent,
  paused: PausedCall,
  asked: CallRequest,
  inputResponses: Record<string, unknown>,
  options: CallOptions,
): Promise<GuardedCallResponse> {
  if (asked.tool !== paused.tool || argumentsHash(asked.arguments, asked.tool) !== paused.argumentsHash) throw notThePausedCall(paused.callId);
  const { request } = await throughCallTool(asked);
  const record = await Call.get(deps.db, caller.id, paused.callId);
  if (record.status !== "running") return ended(record);
  const runsUntil = Date.parse(record.deadline!) - DEADLINE_GRACE_MS;
  if (Date.now() >= runsUntil) throw timedOut(request.tool, runsUntil - Date.parse(record.startedAt));
  const view = await freshView(deps, caller);
  const planned = await plan(view.access, request.tool, request.arguments, deps.settings);
  if (planned.kind === "refuse") return refuseToGoOn(deps, record, paused, planned.error, request.arguments);
  if (planned.confirm || planned.group !== record.group)
    return refuseToGoOn(deps, record, paused, guardError("no_longer_allowed", `The call "${record.callId}" of "${request.tool}" cannot go on: the tool has changed since it started (it now needs an approval, or comes from another group). Call it again.`), request.arguments);
  const claimed = await uncontended(deps.db.contentionDeadlineMs, () => claimInputRound(deps.db, caller.id, record.callId, paused.round));
  if (claimed === "moved") {
    const now = await Call.get(deps.db, caller.id, paused.callId);
    if (now.status !== "running") return ended(now);
    throw guardError("call_already_answered", `The call "${record.callId}" already went on with these answers; read how it ends with GET /agents/${caller.id}/calls/${record.callId}.`, { callId: record.callId });
  }
  const answers: InputAnswers = {
    inputResponses,
    ...(paused.requestState === undefined ? {} : { requestState: paused.requestState }),
    ...(paused.held === undefined ? {} : { held: paused.held }),
  };
  const running = { ...record, inputRound: paused.round + 1 };
  const people = { department: caller.department, relay: options.relay, questionsToOperators: view.access.role.questions === "operator", answering: options.answering };
  const timeoutMs = Math.max(1, runsUntil - Date.now());
  const resumed = { answers, ranMs: paused.ranMs };
  return { status: 200, body: await runAndSettle(deps, planned.executor, running, planned.args, timeoutMs, redactArguments(planned.args).secrets, people, resumed) };
}
