import { setImmediate as turn } from "node:timers/promises";
import { retentionExpiry, transitions } from "../call/lifecycle";
import { redactArguments, storedError, storedResult } from "../call/redact";
import type { CallRecord } from "../call/schema";
import { uncontended } from "../contention";
import { commonError, storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { applyTransition } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { InputRequired, NotAdmitted, run, timedOut } from "../executor/index";
import type { CallRelay, CallSigner, ExecutorCall, HeldOpen, InputAnswers, Natives, SecretSource } from "../executor/index";
import type { ArgumentSeal } from "../call/seal";
import type { EventPublisher } from "../events/publisher";
import { askOperators } from "../question/module";
import type { FormRequest } from "../question/module";
import type { Executor, ToolResult } from "../executor/schema";
import { namingCall } from "./errors";
import type { GuardSettings } from "./settings";

export type RunOutcome = { callId: string; status: "completed" | "error"; result: ToolResult };

export type RunDeps = { db: Db; settings: GuardSettings; natives: Natives; secrets: SecretSource; signer: CallSigner; seal: ArgumentSeal; events: EventPublisher };

/**
 * Who a call is for while it runs: the agent's department (named to the executor), its MCP client if any, and whether
 * its role sends every question to the operators. `ready`: the call, made ready while its admission travelled.
 * `answering`: see Answering.
 */
export type RunPeople = { department?: string | null; relay?: CallRelay | undefined; questionsToOperators?: boolean; ready?: ReadyRun | undefined; answering?: Answering | undefined };

/**
 * Told a call's outcome once the write recording it has left, so that its answer is built while that write travels.
 * The answer may be given only when the run resolves with this same outcome (the record stands); if it resolves with
 * another, or fails, the answer is that instead.
 */
export type Answering = (outcome: RunOutcome) => void;

/** The call as its executor receives it. */
const executorCall = (running: CallRecord, args: Record<string, unknown>, department?: string | null): ExecutorCall => ({
  callId: running.callId,
  tool: running.tool,
  agentId: running.agentId,
  roleId: running.roleId,
  ...(department ? { department } : {}),
  arguments: args,
  ...(running.kind ? { kind: running.kind } : {}),
});

/** A paused call going on: its agent's client's answers, and how long its tool ran before (the pauses not counted). */
export type Resumed = { answers: InputAnswers; ranMs: number };

/**
 * A call made ready to run: its token signed and its executor's request built, nothing sent until `go` (the call is
 * admitted: it runs from then, and its timeout counts from then). `drop`: it was not admitted, and ends unsent.
 */
export type ReadyRun = { go(): Promise<ToolResult>; drop(): void; startedAt(): number };

/** Readies a call about to run as recorded at its admission: see ReadyRun. */
export function readyRun(
  deps: RunDeps,
  executor: Executor,
  running: CallRecord,
  args: Record<string, unknown>,
  timeoutMs: number,
  { department, relay, questionsToOperators = false }: RunPeople = {},
  resumed?: Resumed,
): ReadyRun {
  let admit!: () => void;
  let refuse!: (error: NotAdmitted) => void;
  const admitted = new Promise<void>((resolve, reject) => ((admit = resolve), (refuse = reject)));
  let startedAt: number | undefined;
  const deadline = () => new Date(startedAt! + timeoutMs);
  const operators = (params: Record<string, unknown>, signal: AbortSignal) => askOperators(deps, running, params as FormRequest, deadline(), signal);
  const people = { ...(relay ? { relay } : {}), operators, operatorsFirst: questionsToOperators };
  const options = { timeoutMs, natives: deps.natives, secrets: deps.secrets, signer: deps.signer, people, admitted, ...(running.group ? { group: running.group } : {}), ...(resumed ? { answers: resumed.answers } : {}) };
  const result = run(executor, executorCall(running, args, department), options);
  // A dropped call's end is nobody's to hear.
  result.catch(() => {});
  return {
    go() {
      startedAt ??= Date.now();
      admit();
      return result;
    },
    drop: () => refuse(new NotAdmitted()),
    startedAt: () => startedAt ?? Date.now(),
  };
}

/** The tool ran but its outcome could not be written: retrying blindly could run it twice, so the answer says where to look. */
const outcomeNotRecorded = (running: CallRecord, cause: StoreUnavailableError) =>
  commonError(
    "store_unavailable",
    `The tool "${running.tool}" ran, but toolgate's database stopped answering before its outcome was recorded. Do not simply call it again: once the database is back, read GET /agents/${running.agentId}/calls/${running.callId} to see how it ended.`,
    { ...storeUnavailable().details, callId: running.callId, toolRan: true },
    { cause },
  );

/**
 * Runs an admitted call with its executor, records the outcome once (with no secret of the arguments in it),
 * and answers as the caller should see it. A 403 from the tool itself (a native tool refusing on permission) is recorded as refused.
 * A call whose MCP server asks the agent's own client for input pauses (InputRequired, naming the call) and stays
 * running; `resumed` takes a paused call on. The recorded duration is how long the tool ran, over all its rounds.
 */
export async function runAndSettle(
  deps: RunDeps,
  executor: Executor,
  running: CallRecord,
  args: Record<string, unknown>,
  timeoutMs: number,
  secrets = redactArguments(args).secrets,
  people: RunPeople = {},
  resumed?: Resumed,
): Promise<RunOutcome> {
  const ready = people.ready ?? readyRun(deps, executor, running, args, timeoutMs, people, resumed);
  const ranMs = () => Date.now() - ready.startedAt() + (resumed?.ranMs ?? 0);
  let result: ToolResult | undefined;
  let failure: ToolgateError | undefined;
  try {
    result = await ready.go();
  } catch (error) {
    if (error instanceof InputRequired) {
      if (error.held) recordIfEndedWhileHeld(deps, executor, running, args, timeoutMs, secrets, error.held, ready, resumed);
      throw error.of(running.callId, running.inputRound ?? 0, ranMs());
    }
    if (!(error instanceof ToolgateError) || error.status === 503) throw error;
    failure = error;
  }
  const recorded = result ? { result: storedResult(result, secrets) } : { error: { status: failure!.status, ...storedError(failure!, secrets) } };
  const settled = transitions.settled(running, recorded, ranMs(), new Date());
  const writing = uncontended(deps.db.contentionDeadlineMs, () => applyTransition(deps.db, settled, retentionExpiry(deps.settings, running))).catch(
    (error: unknown) => {
      throw error instanceof StoreUnavailableError ? outcomeNotRecorded(running, error) : error;
    },
  );
  const outcome: RunOutcome | undefined = result && { callId: running.callId, status: settled.to.status as RunOutcome["status"], result };
  if (outcome && people.answering) {
    // Answered below: until then its failure must not count as unhandled.
    writing.catch(() => {});
    await turn();
    people.answering(outcome);
  }
  const written = await writing;
  if (written.kind === "moved") failure = timedOut(running.tool, timeoutMs);
  if (failure) throw namingCall(failure, running.callId);
  return outcome!;
}

/**
 * A call held open while its agent's client answers its server (executor/held.ts) that ends before the answer comes
 * (its deadline passed: tool_timeout; its server answered or failed) is recorded as it ended, as if it had run on.
 */
function recordIfEndedWhileHeld(
  deps: RunDeps,
  executor: Executor,
  running: CallRecord,
  args: Record<string, unknown>,
  timeoutMs: number,
  secrets: string[],
  { endedWhileHeld }: HeldOpen,
  { startedAt }: ReadyRun,
  resumed: Resumed | undefined,
) {
  const ended: ReadyRun = { go: () => endedWhileHeld, drop: () => {}, startedAt };
  runAndSettle(deps, executor, running, args, timeoutMs, secrets, { ready: ended }, resumed).catch(() => {});
}
