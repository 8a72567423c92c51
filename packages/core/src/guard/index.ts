import { setTimeout as sleep } from "node:timers/promises";
import { accessOf, decide } from "../access/index";
import type { Access } from "../access/index";
import type { Agent } from "../agent/schema";
import { storedCallArguments, storedError } from "../call/redact";
import type { ArgumentSeal } from "../call/seal";
import { CallRequest } from "../call/schema";
import type { CallRecord } from "../call/schema";
import { backoffMs } from "../contention";
import { busy, ToolgateError, WriteConflictError } from "../error";
import { putCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import { AdmissionItem, writeAdmission } from "../dynamo/guard";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import type { Executor } from "../group/index";
import { createId } from "../id";
import { nestsDeeperThan } from "../json";
import { needsConfirmation } from "../policy/index";
import type { EffectivePolicy } from "../policy/index";
import { callFingerprint } from "../tool/canonical";
import type { ToolRegistry } from "../tool/registry";
import { parseOr } from "../validation";
import { validateArguments } from "./arguments";
import type { GuardCaches } from "./caches";
import { refusal } from "./refusal";
import { runAndSettle } from "./run";
import type { RunOutcome } from "./run";
import { DEADLINE_GRACE_MS, retentionExpiry } from "./settings";
import type { GuardSettings } from "./settings";
import { admit } from "./state";

export type GuardDeps = { db: Db; catalog: Catalog; caches: GuardCaches; natives: ToolRegistry; settings: GuardSettings; seal: ArgumentSeal };

export type GuardedCallResponse =
  | { status: 200; body: RunOutcome }
  | { status: 202; body: { callId: string; status: "awaiting_confirmation"; tool: string } }
  | { status: 202; body: { callId: string; status: "authorized"; tool: string; arguments: Record<string, unknown> } };

type View = { access: Access; version: number; fresh: boolean };

const roleGone = (roleId: string) => new ToolgateError(403, "role_not_found", `The agent's role "${roleId}" no longer exists, so it has no tools.`);

const viewOf = (agent: Agent, role: Access["role"], snapshot: CatalogSnapshot, fresh: boolean): View => ({
  access: accessOf(agent, role, snapshot),
  version: snapshot.version,
  fresh,
});

async function cachedView(deps: GuardDeps, agent: Agent): Promise<View> {
  const role = await deps.caches.role(agent.roleId);
  if (!role) throw roleGone(agent.roleId);
  return viewOf(agent, role, deps.catalog.peek() ?? (await deps.catalog.snapshot()), false);
}

async function freshView(deps: GuardDeps, agent: Agent): Promise<View> {
  const [current, view] = await Promise.all([deps.caches.refreshAgent(agent.id), viewOn(deps, agent)]);
  if (!current || current.tokenVersion !== agent.tokenVersion) throw refusal.revoked();
  if (current.status !== "active") throw refusal.terminated(agent.id);
  return { ...view, access: { ...view.access, agent: current } };
}

/** The agent's role and catalog as stored now, for an agent the caller has just read. */
async function viewOn(deps: GuardDeps, agent: Agent): Promise<View> {
  const { role, catalogVersion } = await getRoleAndCatalogVersion(deps.db, agent.roleId);
  if (!role) throw roleGone(agent.roleId);
  deps.caches.rememberRole(role);
  return viewOf(agent, role, await deps.catalog.at(catalogVersion), true);
}

export type Plan =
  | { kind: "refuse"; error: ToolgateError; group: string | null }
  | { kind: "admit"; group: string; executor: Executor; args: Record<string, unknown>; policy: EffectivePolicy; timeoutMs: number };

/** Every check that needs no write, in the design's order; the first four are decide(), which also decides what is listed. */
function plan(access: Access, tool: string, args: Record<string, unknown>, settings: GuardSettings): Plan {
  const decision = decide(access, tool);
  if (!decision.allowed) return { kind: "refuse", error: decision.error, group: decision.group };
  const { policy } = decision;
  const group = decision.group.id;
  const validated = validateArguments(decision.definition, args, policy.strict === true);
  if (!validated.valid) return { kind: "refuse", error: refusal.invalidArguments(tool, validated.issues), group };
  const executor = decision.group.executor;
  if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, group), group };
  const timeoutMs = policy.timeoutMs ?? (executor.type === "http" ? executor.timeoutMs : undefined) ?? settings.defaultTimeoutMs;
  return { kind: "admit", group, executor, args: validated.value, policy, timeoutMs };
}

/** The guard's checks again, on fresh reads of an agent just read: an approval must not run what the agent may no longer call. */
export async function reauthorize(deps: GuardDeps, agent: Agent, tool: string, args: Record<string, unknown>): Promise<Plan> {
  return plan((await viewOn(deps, agent)).access, tool, args, deps.settings);
}

async function recordRefusal(deps: GuardDeps, base: CallRecord, error: ToolgateError, started: Date, secrets: string[]): Promise<never> {
  const now = new Date();
  await putCall(
    deps.db,
    {
      ...base,
      status: "refused",
      error: storedError({ code: error.code, message: error.message }, secrets),
      finishedAt: now.toISOString(),
      durationMs: now.getTime() - started.getTime(),
    },
    { expiresAt: retentionExpiry(deps.settings, started) },
  );
  throw new ToolgateError(error.status, error.code, error.message, { ...error.details, callId: base.callId });
}

/** What a call admitted now waits for, and until when. */
function waitFor(planned: Extract<Plan, { kind: "admit" }>, settings: GuardSettings) {
  if (needsConfirmation(planned.policy)) return { status: "awaiting_confirmation" as const, waitMs: settings.confirmationTimeoutMs };
  if (planned.executor.type === "client")
    return { status: "authorized" as const, waitMs: Math.max(planned.timeoutMs, settings.clientResultTimeoutMs) };
  return { status: "running" as const, waitMs: planned.timeoutMs + DEADLINE_GRACE_MS };
}

/**
 * The guard. A warm call to an http executor costs two DynamoDB round trips: the admission
 * transaction (which also proves every cached read current) and the write of the outcome.
 */
export async function guardedCall(deps: GuardDeps, caller: Agent, input: unknown): Promise<GuardedCallResponse> {
  const request = parseOr(CallRequest, input, "invalid_request", "The call");
  const started = new Date();
  const callId = createId("call");
  const base = (view: View, stored: Pick<CallRecord, "arguments" | "argumentsTruncated">): CallRecord => ({
    callId,
    agentId: view.access.agent.id,
    roleId: view.access.role.id,
    tool: request.tool,
    group: null,
    status: "running",
    ...stored,
    startedAt: started.toISOString(),
  });
  let view = await cachedView(deps, caller);
  if (nestsDeeperThan(request.arguments))
    return recordRefusal(deps, base(view, { arguments: "[omitted: nested too deep]" }), refusal.tooDeep(request.tool), started, []);
  const requested = () => storedCallArguments(request.arguments);
  const deadline = Date.now() + deps.db.contentionDeadlineMs;

  for (let attempt = 1; ; attempt++) {
    if (Date.now() > deadline) throw busy();
    const planned = plan(view.access, request.tool, request.arguments, deps.settings);
    if (planned.kind === "refuse") {
      if (!view.fresh) {
        view = await freshView(deps, view.access.agent);
        continue;
      }
      const { stored, secrets } = requested();
      return recordRefusal(deps, { ...base(view, stored), group: planned.group }, planned.error, started, secrets);
    }

    const { status, waitMs } = waitFor(planned, deps.settings);
    const admitted = storedCallArguments(planned.args);
    const record: CallRecord = {
      ...base(view, admitted.stored),
      group: planned.group,
      status,
      deadline: new Date(started.getTime() + waitMs).toISOString(),
    };
    const keepsArguments = status === "awaiting_confirmation" || (status === "authorized" && admitted.secrets.length > 0);
    const agentId = view.access.agent.id;
    const outcome = await deps.caches.exclusive(agentId, async () => {
      const state = await deps.caches.guardState(agentId);
      const admission = admit(
        state,
        { tool: request.tool, fingerprint: callFingerprint(request.tool, planned.args), nowSeconds: Math.floor(started.getTime() / 1000) },
        planned.policy,
        deps.settings.doomLoopThreshold,
      );
      if (!admission.admitted) return { kind: "refused", admission } as const;
      try {
        await writeAdmission(deps.db, {
          agent: view.access.agent,
          role: view.access.role,
          catalogVersion: view.version,
          previous: state,
          next: admission.next,
          record,
          expiresAt: retentionExpiry(deps.settings, started),
          ...(keepsArguments ? { sealedArguments: deps.seal.seal(planned.args) } : {}),
        });
        deps.caches.rememberGuardState(agentId, admission.next);
        return { kind: "admitted" } as const;
      } catch (error) {
        if (!(error instanceof WriteConflictError)) throw error;
        return { kind: "conflict", error } as const;
      }
    });

    if (outcome.kind === "refused") {
      const refused = outcome.admission;
      if (!view.fresh) {
        deps.caches.forgetGuardState(agentId);
        view = await freshView(deps, view.access.agent);
        continue;
      }
      const error =
        refused.code === "rate_limited"
          ? refusal.rateLimited(request.tool, refused.limit, refused.retryAfterSeconds)
          : refusal.doomLoop(request.tool, refused.runs, refused.repeatLimit);
      return recordRefusal(deps, { ...base(view, admitted.stored), group: planned.group }, error, started, admitted.secrets);
    }
    if (outcome.kind === "conflict") {
      const { error } = outcome;
      if (error.refused(AdmissionItem.guard) || error.contended) deps.caches.forgetGuardState(agentId);
      if (error.refused(AdmissionItem.catalog)) deps.catalog.invalidate();
      if (error.contended) await sleep(backoffMs(attempt));
      if (error.refused(AdmissionItem.agent) || error.refused(AdmissionItem.role) || error.refused(AdmissionItem.catalog))
        view = await freshView(deps, view.access.agent);
      continue;
    }

    if (status === "awaiting_confirmation") return { status: 202, body: { callId, status, tool: request.tool } };
    if (status === "authorized") return { status: 202, body: { callId, status, tool: request.tool, arguments: planned.args } };
    return { status: 200, body: await runAndSettle(deps, planned.executor, record, planned.args, planned.timeoutMs) };
  }
}

