import { decide } from "../access/index";
import type { Access, Allowed } from "../access/index";
import type { Executor } from "../executor/schema";
import { executorTimeoutMs, runsIn } from "../executor/types";
import { ToolgateError } from "../error";
import { policyIndex } from "../policy/applicable";
import type { Applicable } from "../policy/applicable";
import { decideCall } from "../policy/evaluate";
import type { PolicyDecision } from "../policy/evaluate";
import { policyDenied } from "../policy/refusals";
import { needsConfirmation } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
import { principalOf } from "../policy/principal";
import { workspaceRootOf } from "../policy/workspace";
import type { ToolDefinition } from "../tool/schema";
import { scopeOfGroup } from "../group/schema";
import type { GroupScope } from "../scope/schema";
import type { Admission } from "../call/lifecycle";
import { asksPerson } from "../question/schema";
import { loadArgumentValidator, validateArguments } from "./arguments";
import { refusal } from "./refusal";
import type { GuardSettings } from "./settings";

export type Plan =
  | { kind: "refuse"; error: ToolgateError; group: string | null; decision?: PolicyDecision }
  | {
      kind: "admit";
      tool: string;
      group: string;
      scope: GroupScope;
      executor: Executor;
      args: Record<string, unknown>;
      policy: EffectivePolicy;
      timeoutMs: number;
      decision: PolicyDecision;
      /** Waits for an operator's approval: a policy asks, or none decided and the tool's own policy does. */
      confirm: boolean;
    };

export type Admitted = Extract<Plan, { kind: "admit" }>;

/**
 * The Cedar policies' decision about a call with valid arguments, as the plan's refusal or what it admits. `own`: a
 * resource read's or prompt get's own context (`uri`, `prompt`) and the name its refusal gives it.
 */
export async function policyDecision(access: Access, definition: ToolDefinition, group: string, args: Record<string, unknown>, applicable: Applicable, own?: { name: string; context: Record<string, string> }) {
  const { agent, role } = access;
  const root = workspaceRootOf(role, agent);
  const tool = own?.name ?? definition.function.name;
  try {
    const { decision, facts } = await decideCall({ principal: principalOf(agent, role), definition, group, args, root, revision: access.revision, applicable, ...(own ? { context: own.context } : {}) });
    if (decision.effect !== "deny") return { decision };
    const deciding = decision.policies.flatMap((id) => access.policies.get(id) ?? []);
    return { decision, error: policyDenied(tool, deciding, facts, root) };
  } catch (error) {
    if (error instanceof ToolgateError) return { decision: undefined, error };
    throw error;
  }
}

type Refused = Extract<Plan, { kind: "refuse" }>;

/** What planning knows so far: the access decision, then the validated arguments, then the executor. */
type Planning = { access: Access; tool: string; allowed: Allowed; args: Record<string, unknown>; executor?: Executor };

/** The checks after decide() that need no write and no policy, in the guard's order; each refuses or moves the planning on. */
const PLAN_STEPS: ReadonlyArray<{ check: string; run: (planning: Planning) => Promise<Planning | Refused> | Planning | Refused }> = [
  {
    check: "the arguments match the tool's JSON Schema",
    run: async (planning) => {
      await loadArgumentValidator();
      const { allowed, tool } = planning;
      const validated = validateArguments(allowed.definition, planning.args, allowed.policy.strict === true);
      if (!validated.valid) return { kind: "refuse", error: refusal.invalidArguments(tool, validated.issues), group: allowed.group.id };
      return { ...planning, args: validated.value };
    },
  },
  {
    check: "something runs the tool",
    run: (planning) => {
      const { allowed, tool } = planning;
      const executor = allowed.group.executor;
      if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, allowed.group.id), group: allowed.group.id };
      return { ...planning, executor };
    },
  },
];

/**
 * A call that passed every check but the last, the policies about its arguments: `decide()` asks them. The guard asks
 * while its admission's first requests travel when some policy applies (Cedar's time then overlaps the round trip).
 */
export type Prepared = {
  kind: "prepared";
  args: Record<string, unknown>;
  policy: EffectivePolicy;
  /** Some policy applies to the call: its answer takes Cedar's time. With none, the answer is known at once. */
  asksPolicies: boolean;
  /** The counter its rate limits and doom loop count under, when not the tool's own (a resource read's: per kind and group). */
  counter?: string;
  decide(): Promise<Plan>;
};

/** Every check that needs no write, in the design's order: decide() (which also decides what is listed), PLAN_STEPS, then the policies. */
export async function prepare(access: Access, tool: string, args: Record<string, unknown>, settings: Pick<GuardSettings, "defaultTimeoutMs">): Promise<Refused | Prepared> {
  const allowed = decide(access, tool);
  if (!allowed.allowed) return { kind: "refuse", error: allowed.error, group: allowed.group };
  let planning: Planning = { access, tool, allowed, args };
  for (const step of PLAN_STEPS) {
    const next = await step.run(planning);
    if ("kind" in next) return next;
    planning = next;
  }
  const { policy, definition } = allowed;
  const group = allowed.group.id;
  const executor = planning.executor!;
  const applicable = policyIndex(access.policies).applicable(tool, group, principalOf(access.agent, access.role));
  const timeoutMs = policy.timeoutMs ?? executorTimeoutMs(executor) ?? settings.defaultTimeoutMs;
  return {
    kind: "prepared",
    args: planning.args,
    policy,
    asksPolicies: applicable.enforce.length > 0 || applicable.logOnly.length > 0,
    decide: async () => {
      const { decision, error } = await policyDecision(access, definition, group, planning.args, applicable);
      if (error) return { kind: "refuse", error, group, ...(decision ? { decision } : {}) };
      const confirm = decision.effect === "ask" || (decision.effect !== "allow" && needsConfirmation(policy));
      return { kind: "admit", tool, group, scope: scopeOfGroup(allowed.group), executor, args: planning.args, policy, timeoutMs, decision, confirm };
    },
  };
}

/** The whole plan at once: every check that needs no write, the policies' answer included. */
export async function plan(access: Access, tool: string, args: Record<string, unknown>, settings: Pick<GuardSettings, "defaultTimeoutMs">): Promise<Plan> {
  const prepared = await prepare(access, tool, args, settings);
  return prepared.kind === "refuse" ? prepared : prepared.decide();
}

/** Who runs a call of a group's tool: a person answers ask_user; otherwise the group's executor, in toolgate or in the agent's runtime. */
export const executedBy = (group: string, tool: string, executor: Executor): Admission["executedBy"] =>
  asksPerson(group, tool) ? "person" : runsIn(executor);

/** How the call lifecycle sees an admitted plan: what it waits for and how long it may run. */
export const admissionOf = (planned: Admitted): Admission => ({
  needsConfirmation: planned.confirm,
  executedBy: executedBy(planned.group, planned.tool, planned.executor),
  timeoutMs: planned.timeoutMs,
});
