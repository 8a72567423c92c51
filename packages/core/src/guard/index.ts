import { setTimeout as sleep } from "node:timers/promises";
import { decide } from "../access/index";
import type { Agent } from "../agent/schema";
import { storedArguments } from "../call/redact";
import { CallRequest } from "../call/schema";
import type { CallRecord } from "../call/schema";
import { ToolgateError, WriteConflictError } from "../error";
import { putCall } from "../dynamo/calls";
import type { Db } from "../dynamo/client";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import { AdmissionItem, writeAdmission } from "../dynamo/guard";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import { createId } from "../id";
import { effectivePolicy, needsConfirmation, permissionProblem } from "../policy/index";
import { effectiveToolGroups } from "../role/index";
import type { Role } from "../role/schema";
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

export type GuardDeps = { db: Db; catalog: Catalog; caches: GuardCaches; natives: ToolRegistry; settings: GuardSettings };

export type GuardedCallResponse =
  | { status: 200; body: RunOutcome }
  | { status: 202; body: { callId: string; status: "awaiting_confirmation"; tool: string } }
  | { status: 202; body: { callId: string; status: "authorized"; tool: string; arguments: Record<string, unknown> } };

type View = { agent: Agent; role: Role; snapshot: CatalogSnapshot; fresh: boolean };

const MAX_ATTEMPTS = 12;

async function cachedView(deps: GuardDeps, agent: Agent): Promise<View> {
  const role = await deps.caches.role(agent.roleId);
  if (!role) throw new ToolgateError(403, "role_not_found", `The agent's role "${agent.roleId}" no longer exists, so it has no tools.`);
  const snapshot = deps.catalog.peek() ?? (await deps.catalog.snapshot());
  return { agent, role, snapshot, fresh: false };
}

async function freshView(deps: GuardDeps, agent: Agent): Promise<View> {
  const [current, view] = await Promise.all([deps.caches.refreshAgent(agent.id), viewOn(deps, agent)]);
  if (!current || current.tokenVersion !== agent.tokenVersion) throw refusal.revoked();
  if (current.status !== "active") throw refusal.terminated(agent.id);
  return { ...view, agent: current };
}

/** The agent's role and catalog as stored now, for an agent the caller has just read. */
async function viewOn(deps: GuardDeps, agent: Agent): Promise<View> {
  const { role, catalogVersion } = await getRoleAndCatalogVersion(deps.db, agent.roleId);
  if (!role) throw new ToolgateError(403, "role_not_found", `The agent's role "${agent.roleId}" no longer exists, so it has no tools.`);
  deps.caches.rememberRole(role);
  return { agent, role, snapshot: await deps.catalog.at(catalogVersion), fresh: true };
}

export type Plan =
  | { kind: "refuse"; error: ToolgateError; group: string | null }
  | {
      kind: "admit";
      group: string;
      executor: NonNullable<ReturnType<CatalogSnapshot["manager"]["findTool"]>>["group"]["executor"] & {};
      args: Record<string, unknown>;
      policy: ReturnType<typeof effectivePolicy>;
      timeoutMs: number;
    };

/** Every check that needs no write, in the design's order. */
function plan(view: View, tool: string, args: Record<string, unknown>, settings: GuardSettings): Plan {
  const { manager, overrides } = view.snapshot;
  const decision = decide({ manager, role: view.role, groups: effectiveToolGroups(view.role, manager) }, tool);
  if (!decision.allowed) return { kind: "refuse", error: decision.error, group: decision.group };
  const group = decision.group.id;
  const policy = effectivePolicy(decision.definition, overrides.get(tool));
  if (policy.disabled) return { kind: "refuse", error: refusal.disabled(tool), group };
  const problem = permissionProblem(policy, view.role, view.agent);
  if (problem) return { kind: "refuse", error: refusal.permission(tool, problem), group };
  const validated = validateArguments(decision.definition, args, policy.strict === true);
  if (!validated.valid) return { kind: "refuse", error: refusal.invalidArguments(tool, validated.issues), group };
  const executor = decision.group.executor;
  if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, group), group };
  const timeoutMs = policy.timeoutMs ?? (executor.type === "http" ? executor.timeoutMs : undefined) ?? settings.defaultTimeoutMs;
  return { kind: "admit", group, executor, args: validated.value, policy, timeoutMs };
}

/** The guard's checks again, on fresh reads of an agent just read: an approval must not run what the agent may no longer call. */
export async function reauthorize(deps: GuardDeps, agent: Agent, tool: string, args: Record<string, unknown>): Promise<Plan> {
  return plan(await viewOn(deps, agent), tool, args, deps.settings);
}

async function recordRefusal(deps: GuardDeps, base: CallRecord, error: ToolgateError, started: Date): Promise<never> {
  const now = new Date();
  await putCall(
    deps.db,
    { ...base, status: "refused", error: { code: error.code, message: error.message }, finishedAt: now.toISOString(), durationMs: now.getTime() - started.getTime() },
    { expiresAt: retentionExpiry(deps.settings, started) },
  );
  throw new ToolgateError(error.status, error.code, error.message, { ...error.details, callId: base.callId });
}

/**
 * The guard. A warm call to an http executor costs two DynamoDB round trips: the admission
 * transaction (which also proves every cached read current) and the write of the outcome.
 */
export async function guardedCall(deps: GuardDeps, caller: Agent, input: unknown): Promise<GuardedCallResponse> {
  const request = parseOr(CallRequest, input, "invalid_request", "The call");
  const started = new Date();
  const callId = createId("call");
  let view = await cachedView(deps, caller);

  for (let attempt = 1; ; attempt++) {
    if (attempt > MAX_ATTEMPTS) throw refusal.busy();
    const base: CallRecord = {
      callId,
      agentId: view.agent.id,
      roleId: view.role.id,
      tool: request.tool,
      group: null,
      status: "running",
      ...storedArguments(request.arguments),
      startedAt: started.toISOString(),
    };
    const planned = plan(view, request.tool, request.arguments, deps.settings);
    if (planned.kind === "refuse") {
      if (!view.fresh) {
        view = await freshView(deps, view.agent);
        continue;
      }
      return recordRefusal(deps, { ...base, group: planned.group }, planned.error, started);
    }

    const status = needsConfirmation(planned.policy) ? "awaiting_confirmation" : planned.executor.type === "client" ? "authorized" : "running";
    const waitMs =
      status === "awaiting_confirmation"
        ? deps.settings.confirmationTimeoutMs
        : status === "authorized"
          ? Math.max(planned.timeoutMs, deps.settings.clientResultTimeoutMs)
          : planned.timeoutMs + DEADLINE_GRACE_MS;
    const record: CallRecord = {
      ...base,
      group: planned.group,
      status,
      ...storedArguments(planned.args),
      deadline: new Date(started.getTime() + waitMs).toISOString(),
    };
    const admitted = await deps.caches.exclusive(view.agent.id, async () => {
      const state = await deps.caches.guardState(view.agent.id);
      const admission = admit(
        state,
        { tool: request.tool, fingerprint: callFingerprint(request.tool, planned.args), nowSeconds: Math.floor(started.getTime() / 1000) },
        planned.policy,
        deps.settings.doomLoopThreshold,
      );
      if (!admission.admitted) return { kind: "refused", admission } as const;
      try {
        await writeAdmission(deps.db, {
          agent: view.agent,
          role: view.role,
          catalogVersion: view.snapshot.version,
          previous: state,
          next: admission.next,
          record,
          expiresAt: retentionExpiry(deps.settings, started),
          ...(status === "awaiting_confirmation" ? { pendingArguments: planned.args } : {}),
        });
        deps.caches.rememberGuardState(view.agent.id, admission.next);
        return { kind: "admitted" } as const;
      } catch (error) {
        if (!(error instanceof WriteConflictError)) throw error;
        return { kind: "conflict", reasons: error.reasons } as const;
      }
    });

    if (admitted.kind === "refused") {
      const refused = admitted.admission;
      if (!view.fresh) {
        deps.caches.forgetGuardState(view.agent.id);
        view = await freshView(deps, view.agent);
        continue;
      }
      const error =
        refused.code === "rate_limited"
          ? refusal.rateLimited(request.tool, refused.limit, refused.retryAfterSeconds)
          : refusal.doomLoop(request.tool, refused.repeats);
      return recordRefusal(deps, { ...base, group: planned.group }, error, started);
    }
    if (admitted.kind === "conflict") {
      const reasons = admitted.reasons;
      if (reasons[AdmissionItem.guard]) deps.caches.forgetGuardState(view.agent.id);
      if (reasons[AdmissionItem.catalog]) deps.catalog.invalidate();
      if (reasons.some((reason) => reason === "TransactionConflict")) await sleep(Math.random() * 20 * attempt);
      if (reasons[AdmissionItem.agent] || reasons[AdmissionItem.role] || reasons[AdmissionItem.catalog]) view = await freshView(deps, view.agent);
      continue;
    }

    if (status === "awaiting_confirmation") return { status: 202, body: { callId, status, tool: request.tool } };
    if (status === "authorized") return { status: 202, body: { callId, status, tool: request.tool, arguments: planned.args } };
    const outcome = await runAndSettle(deps.db, deps.settings, deps.natives, planned.executor, record, planned.args, planned.timeoutMs);
    return { status: 200, body: outcome };
  }
}
