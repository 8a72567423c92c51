import { setTimeout as sleep } from "node:timers/promises";
import { loadView, scopesToLoad, viewDeciding, viewFrom } from "../access/index";
import { groupsToLoad } from "../role/schema";
import type { View } from "../access/index";
import type { Agent } from "../agent/schema";
import { retentionExpiry, transitions } from "../call/lifecycle";
import { storedCallArguments, storedError } from "../call/redact";
import type { CallRecord, CallRequest } from "../call/schema";
import { backoffMs } from "../contention";
import { busy, storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { putCall } from "../dynamo/calls";
import { AdmissionWriteError, beginAdmission } from "../dynamo/admission";
import type { PendingAdmission } from "../dynamo/admission";
import { awaitingConfirmation, questionAsked } from "../events/index";
import { AskUserArguments } from "../question/schema";
import { readAdmissionStart, readGuard, writeGuardState } from "../dynamo/guard";
import type { StoredGuard } from "../dynamo/guard";
import type { GuardState } from "./schema";
import type { PolicyDecision } from "../policy/evaluate";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import { META_GROUP_ID } from "../builtin/tool-search";
import { createId } from "../id";
import { nestsDeeperThan } from "../json";
import { callFingerprint } from "../tool/canonical";
import type { GuardDeps } from "./deps";
import { namingCall } from "./errors";
import type { CallRelay, InputAnswers } from "../executor/relay";
import { throughCallTool } from "./call-tool";
import { admissionOf, prepare } from "./plan";
import { offerRequest, prepareOffer } from "./offer";
import type { OfferCall } from "../offer/schema";
import type { Admitted, Plan } from "./plan";
import { refusal } from "./refusal";
import { readyRun, runAndSettle } from "./run";
import type { Answering, RunOutcome } from "./run";
import { admit } from "./state";

export { approve, deny, reportResult } from "./approvals";
export { isCallerRefusal } from "./refusal";
export { GUARD_ERRORS, guardError } from "./errors";
export type { GuardDeps } from "./deps";
export type { ApprovalOutcome } from "./approvals";
export { DEFAULT_GUARD_SETTINGS } from "./settings";
export type { GuardSettings } from "./settings";
export { GuardStates } from "./caches";
export type { Answering, RunOutcome } from "./run";


/** A call admitted to wait, as its caller hears of it: when it started and its deadline, both as recorded. */
type Waiting = { callId: string; tool: string; startedAt: string; deadline: string };

export type GuardedCallResponse =
  | { status: 200; body: RunOutcome }
  | { status: 202; body: Waiting & { status: "awaiting_confirmation" } }
  | { status: 202; body: Waiting & { status: "awaiting_answer"; askedOf?: "user" } }
  | { status: 202; body: Waiting & { status: "authorized"; arguments: Record<string, unknown> } };

/** The agent as stored now, if it still honours the token presented (same token version, active); else the refusal. */
function stillHonoured(presented: Agent, current: Agent | undefined): Agent {
  if (!current || current.tokenVersion !== presented.tokenVersion) throw refusal.revoked();
  if (current.status !== "active") throw refusal.terminated(presented.id);
  return current;
}

/** The agent, role and catalog as stored now; the agent is read again too, so nothing is decided on a revoked token. */
export async function freshView(deps: GuardDeps, agent: Agent): Promise<View> {
  const [current, read] = await Promise.all([deps.agents.refresh(agent.id), getRoleAndCatalogVersion(deps.db, agent.roleId)]);
  return viewFrom(deps, stillHonoured(agent, current), read);
}

/** A warm process plans on what it remembers; a cold one reads the role, the catalog version and the guard record in one round trip. */
async function startingView(deps: GuardDeps, agent: Agent): Promise<{ view: View; guard: StoredGuard }> {
  const guard = deps.states.peek(agent.id);
  const role = deps.roles.peek(agent.roleId);
  if (guard && role && deps.catalog.peekForGroups(groupsToLoad(role), scopesToLoad(agent, role))) return { view: await loadView(deps, agent, "cached"), guard };
  const start = await readAdmissionStart(deps.db, agent.id, agent.roleId);
  deps.states.remember(agent.id, start.guard);
  return { view: await viewFrom(deps, agent, start), guard: start.guard };
}

/** A guard record with no copy of the agent's token (an agent created before it was kept there) is filled in from a fresh read. */
async function provenCaller(deps: GuardDeps, caller: Agent, guard: StoredGuard): Promise<void> {
  if (guard.tokenVersion !== undefined) return;
  stillHonoured(caller, await deps.agents.refresh(caller.id));
}

type Refused = Extract<Plan, { kind: "refuse" }>;

type Admission = { planned: Admitted; record: CallRecord; keepsArguments: boolean; secrets: string[] };

/** The call's start as it will be recorded, and whether its real arguments must wait beside it (sealed). */
function admission(deps: GuardDeps, planned: Admitted, base: CallRecord, options: CallOptions): Admission {
  const { stored, secrets } = storedCallArguments(planned.args);
  const admitted = transitions.admitted({ ...base, group: planned.group, scope: planned.scope, decision: planned.decision, ...stored }, admissionOf(planned), deps.settings).to;
  const record = admitted.status === "awaiting_answer" && options.askedOf ? { ...admitted, askedOf: options.askedOf } : admitted;
  const keepsArguments = record.status === "awaiting_confirmation" || record.status === "awaiting_answer" || (record.status === "authorized" && secrets.length > 0);
  return { planned, record, keepsArguments, secrets };
}

/** Puts back the counters an admission counted before the call was refused on a fresh plan. */
async function restoreCounters(deps: GuardDeps, caller: Agent, counters: GuardState) {
  const current = deps.states.peek(caller.id) ?? (await readGuard(deps.db, caller.id));
  const next = { ...counters, seq: current.state.seq + 1 };
  const written = await writeGuardState(deps.db, { agentId: caller.id, previous: current, next, tokenVersion: caller.tokenVersion });
  if (written.kind === "ok") deps.states.remember(caller.id, { state: next, tokenVersion: caller.tokenVersion, active: true, exists: true });
  else deps.states.forget(caller.id);
}

/**
 * `askedOf: "user"`: a question (ask_user) goes to the agent's own user, whose client answers it, not to the operators' queue.
 * `relay`: the agent's MCP client, to which what an MCP module sends during the call is carried.
 * `answering`: told the outcome of a call that ran while its record is written (see Answering).
 * `offer`: a resource read or a prompt get (guardedOffer), not a tool's call; `answers`: such a read or get sent again
 * with its client's answers to what its server asked first (a use of its own).
 */
export type CallOptions = { askedOf?: "user"; relay?: CallRelay; answering?: Answering; offer?: OfferCall; answers?: InputAnswers };

/** A role whose questions always go to an operator puts none to its agents' users, whatever their clients can do. */
const questionsToOperators = (view: View) => view.access.role.questions === "operator";

/**
 * A call about to run, made ready once the admission's requests have left: its token is signed and its executor's
 * request built while they travel, not after. Nothing is sent until the guard says go.
 */
async function readiedWhileTravelling(deps: GuardDeps, pending: PendingAdmission, { planned, record }: Admission, caller: Agent, view: View, options: CallOptions) {
  await pending.sent();
  const people = { department: caller.department, relay: options.relay, questionsToOperators: questionsToOperators(view) };
  return readyRun(deps, planned.executor, record, planned.args, planned.timeoutMs, people, options.answers && { answers: options.answers, ranMs: 0 });
}

/**
 * The guard. A warm call to an http executor costs one round trip before the tool runs — its admission (the agent's
 * guard state, which also proves its token current, the call's start and the versions that prove the cached plan
 * current, written and read together) — and one write of the outcome after it. When policies apply to the call, Cedar
 * answers while the admission's first requests travel: the start, which records the answer, follows them; a call the
 * policies refuse has the counters it counted put back. A call_tool call is the call of the tool it names, and recorded as that tool's.
 */
export async function guardedCall(deps: GuardDeps, caller: Agent, asked: CallRequest, options: CallOptions = {}): Promise<GuardedCallResponse> {
  const { offer } = options;
  const { request, problem } = offer ? { request: asked, problem: undefined } : await throughCallTool(asked);
  const started = new Date();
  const callId = createId("call");
  const expiresAt = retentionExpiry(deps.settings, { startedAt: started.toISOString() });
  const base = (stored: Pick<CallRecord, "arguments" | "argumentsTruncated">): CallRecord => ({
    callId,
    agentId: caller.id,
    roleId: caller.roleId,
    tool: request.tool,
    ...(offer ? { kind: offer.kind } : {}),
    group: null,
    status: "running",
    ...stored,
    startedAt: started.toISOString(),
  });
  /** Set once the call's start is written: a failure after it must not leave the start looking as if the call ran. */
  let startWritten = false;
  const refuse = async (error: ToolgateError, group: string | null, stored = storedCallArguments(request.arguments), decision?: PolicyDecision): Promise<never> => {
    const record = transitions.refused({ ...base(stored.stored), group, ...(decision ? { decision } : {}) }, storedError(error, stored.secrets), new Date()).to;
    await putCall(deps.db, record, expiresAt);
    throw namingCall(error, callId);
  };

  if (problem) return refuse(problem, META_GROUP_ID);
  let { view, guard } = await startingView(deps, caller);
  /** After an admission counted on a stale plan: the agent's counters as they were, to restore if the call ends refused. */
  let uncounted: GuardState | undefined;
  const refuseUncounted = async (error: ToolgateError, group: string | null, decision?: PolicyDecision): Promise<never> => {
    if (uncounted) await restoreCounters(deps, caller, uncounted).catch(() => {});
    return refuse(error, group, undefined, decision);
  };
  if (nestsDeeperThan(request.arguments)) return refuse(refusal.tooDeep(request.tool), null, { stored: { arguments: "[omitted: nested too deep]" }, secrets: [] });
  await provenCaller(deps, caller, guard);
  const deadline = Date.now() + deps.db.contentionDeadlineMs;

  try {
    for (let attempt = 1; ; attempt++) {
      if (Date.now() > deadline) throw busy();
      if (!offer) view = await viewDeciding(deps, view, request.tool);
      /** A plan refused on a cached view is made again on a fresh one; on a fresh view the refusal stands. */
      const refusedOn = async (refused: Refused) => {
        if (view.fresh) return await refuseUncounted(refused.error, refused.group, refused.decision);
        view = await freshView(deps, caller);
      };
      const prepared = offer ? prepareOffer(view.access, offer, deps.settings) : await prepare(view.access, request.tool, request.arguments, deps.settings);
      if (prepared.kind === "refuse") {
        await refusedOn(prepared);
        continue;
      }
      // With no policy to ask, the plan is whole now; with some, Cedar answers while the admission's first requests travel.
      const known = prepared.asksPolicies ? undefined : await prepared.decide();
      if (known?.kind === "refuse") {
        await refusedOn(known);
        continue;
      }
      const decided = await deps.states.exclusive(caller.id, async () => {
        guard = deps.states.peek(caller.id) ?? (await readGuard(deps.db, caller.id));
        const fingerprint = callFingerprint(request.tool, prepared.args);
        const admitted = admit(guard.state, { tool: prepared.counter ?? request.tool, fingerprint, nowSeconds: Math.floor(started.getTime() / 1000) }, prepared.policy, deps.settings.doomLoopThreshold);
        if (!admitted.admitted) {
          // The policies' refusal comes first, as if they had been asked before the counters.
          const planned = known ?? (await prepared.decide());
          return planned.kind === "refuse" ? ({ kind: "refused", planned } as const) : ({ kind: "limited", admitted, planned } as const);
        }
        const pending = beginAdmission(deps.db, {
          guard: { agentId: caller.id, previous: guard, next: admitted.next, tokenVersion: caller.tokenVersion, admittedAt: started.getTime() },
          ...(view.fresh ? {} : { checkRole: caller.roleId }),
        });
        let planned: Plan | undefined = known;
        if (!planned) {
          await pending.sent();
          planned = await prepared.decide();
        }
        if (planned.kind === "refuse") {
          const written = await pending.abandon();
          if (written?.kind !== "ok") {
            if (written?.kind === "stale") deps.states.remember(caller.id, written.current);
            else deps.states.forget(caller.id);
            return { kind: "refused", planned } as const;
          }
          // Counted before the policies refused: the counters as they were are put back when the refusal is recorded.
          deps.states.remember(caller.id, { state: { ...guard.state, seq: admitted.next.seq }, tokenVersion: caller.tokenVersion, active: true, exists: true });
          return { kind: "refused", planned, counted: guard.state } as const;
        }
        const next = admission(deps, planned, base({ arguments: null }), questionsToOperators(view) ? {} : options);
        const completing = pending
          .complete({ start: next.record, expiresAt, ...(next.keepsArguments ? { sealedArguments: deps.seal.seal(planned.args) } : {}) })
          .catch((error: unknown) => {
            if (!(error instanceof AdmissionWriteError)) throw error;
            startWritten = error.startWritten;
            throw error.cause;
          });
        // Answered below, once the call is ready: until then its failure must not count as unhandled.
        completing.catch(() => {});
        const ready = next.record.status === "running" ? await readiedWhileTravelling(deps, pending, next, caller, view, options) : undefined;
        const { guard: written, check } = await completing.catch((error: unknown) => {
          ready?.drop();
          throw error;
        });
        startWritten = true;
        if (written.kind === "ok") deps.states.remember(caller.id, { state: admitted.next, tokenVersion: caller.tokenVersion, active: true, exists: true });
        else if (written.kind === "stale") deps.states.remember(caller.id, written.current);
        else deps.states.forget(caller.id);
        return { kind: "written", written, check, next, ready, before: guard.state, after: admitted.next } as const;
      });

      if (decided.kind === "refused") {
        if ("counted" in decided) uncounted ??= decided.counted;
        await refusedOn(decided.planned);
        continue;
      }
      if (decided.kind === "limited") {
        if (!view.fresh) {
          deps.states.forget(caller.id);
          view = await freshView(deps, caller);
          continue;
        }
        const limited = decided.admitted;
        const error =
          limited.code === "rate_limited"
            ? refusal.rateLimited(request.tool, limited.limit, limited.retryAfterSeconds)
            : refusal.doomLoop(request.tool, limited.runs, limited.repeatLimit);
        return await refuseUncounted(error, decided.planned.group, decided.planned.decision);
      }
      const { written, check, next, ready } = decided;
      const planOutdated = check !== undefined && (check.roleVersion !== view.access.role.version || check.catalogVersion !== view.version);
      // A call readied while its admission travelled goes only if that admission stands.
      if (written.kind !== "ok" || planOutdated) ready?.drop();
      if (written.kind === "contention") {
        await sleep(backoffMs(attempt));
        continue;
      }
      if (written.kind === "stale") {
        // "agent": the token copy did not match: refused below if the token was revoked or the agent terminated, else tried again.
        if (written.of === "agent") await freshView(deps, caller);
        continue;
      }
      if (planOutdated) {
        // Counted on a stale plan: decide again on what is stored now, from the counters as they were before this call.
        uncounted = decided.before;
        deps.states.remember(caller.id, { state: { ...decided.before, seq: decided.after.seq }, tokenVersion: caller.tokenVersion, active: true, exists: true });
        view = await viewFrom(deps, caller, await getRoleAndCatalogVersion(deps.db, caller.roleId));
        continue;
      }
      const { record, planned: admitted, secrets } = next;
      const waiting = { callId, tool: request.tool, startedAt: record.startedAt, deadline: record.deadline! };
      if (record.status === "awaiting_confirmation") {
        await deps.events.publish(awaitingConfirmation(record));
        return { status: 202, body: { ...waiting, status: record.status } };
      }
      if (record.status === "awaiting_answer") {
        if (!record.askedOf) await deps.events.publish(questionAsked(record, AskUserArguments.parse(admitted.args)));
        return { status: 202, body: { ...waiting, status: record.status, ...(record.askedOf ? { askedOf: record.askedOf } : {}) } };
      }
      if (record.status === "authorized") return { status: 202, body: { ...waiting, status: record.status, arguments: admitted.args } };
      return { status: 200, body: await runAndSettle(deps, admitted.executor, record, admitted.args, admitted.timeoutMs, secrets, { ready, answering: options.answering }) };
    }
  } catch (error) {
    const answered = error instanceof StoreUnavailableError ? storeUnavailable(error) : error;
    if (startWritten && answered instanceof ToolgateError && !("callId" in answered.details)) await refuse(answered, null).catch(() => {});
    throw error;
  }
}

/**
 * A resource read or a prompt get through the guard, as a tool's call is: decided by the same view (a URI or prompt the
 * agent could not have listed is tool_not_available), counted under the group's offer policy, decided by the policies,
 * run live on the group's server within its timeout, and recorded (`kind: "resource"` or `"prompt"`). A server that
 * asks the agent's client for input first answers `asksForInput` (when that client takes it), recorded as completed.
 */
export const guardedOffer = (deps: GuardDeps, caller: Agent, offer: OfferCall, options: Omit<CallOptions, "offer" | "askedOf"> = {}) =>
  guardedCall(deps, caller, offerRequest(offer), { ...options, offer }) as Promise<Extract<GuardedCallResponse, { status: 200 }>>;
