import { decide } from "../access/index";
import type { Access, Allowed } from "../access/index";
import type { Executor } from "../executor/schema";
import { ToolgateError } from "../error";
import { policyIndex } from "../policy/applicable";
import { decideCall } from "../policy/evaluate";
import type { PolicyDecision } from "../policy/evaluate";
import { policyDenied } from "../policy/refusals";
import { needsConfirmation } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
import { principalOf } from "../policy/principal";
import { workspaceRootOf } from "../policy/workspace";
import type { ToolDefinition } from "../tool/schema";
import { loadArgumentValidator, validateArguments } from "./arguments";
import { refusal } from "./refusal";
import type { GuardSettings } from "./settings";

export type Plan =
  | { kind: "refuse"; error: ToolgateError; group: string | null; decision?: PolicyDecision }
  | {
      kind: "admit";
      group: string;
      executor: Executor;
      args: Record<string, unknown>;
      policy: EffectivePolicy;
      timeoutMs: number;
      decision: PolicyDecision;
      /** Waits for an operator's approval: a policy asks, or none decided and the tool's own policy does. */
      confirm: boolean;
    };

export type Admitted = Extract<Plan, { kind: "admit" }>;

/** The Cedar policies' decision about a call with valid arguments, as the plan's refusal or what it admits. */
async function policyDecision(access: Access, definition: ToolDefinition, group: string, args: Record<string, unknown>) {
  const { agent, role } = access;
  const root = workspaceRootOf(role, agent);
  const tool = definition.function.name;
  const principal = principalOf(agent, role);
  const applicable = policyIndex(access.policies).applicable(tool, group, principal);
  try {
    const { decision, facts } = await decideCall({ principal, definition, group, args, root, revision: access.revision, applicable });
    if (decision.effect !== "deny") return { decision };
    const deciding = decision.policies.flatMap((id) => access.policies.get(id) ?? []);
    return { decision, error: policyDenied(tool, deciding, facts, root) };
  } catch (error) {
    if (error instanceof ToolgateError) return { decision: undefined, error };
    throw error;
  }
}

type Refused = Extract<Plan, { kind: "refuse" }>;

/** What planning knows so far: the access decision, then the validated arguments, the policies' decision, the executor. */
type Planning = { access: Access; tool: string; allowed: Allowed; args: Record<string, unknown>; decision?: PolicyDecision; executor?: Executor };

/** The checks after decide() that need no write, in the guard's order; each refuses or moves the planning on. */
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
    check: "the policies about the arguments do not deny the call",
    run: async (planning) => {
      const group = planning.allowed.group.id;
      const decided = await policyDecision(planning.access, planning.allowed.definition, group, planning.args);
      if (decided.error) return { kind: "refuse", error: decided.error, group, ...(decided.decision ? { decision: decided.decision } : {}) };
      return { ...planning, decision: decided.decision };
    },
  },
  {
    check: "something runs the tool",
    run: (planning) => {
      const { allowed, tool } = planning;
      const executor = allowed.group.executor;
      if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, allowed.group.id), group: allowed.group.id, ...(planning.decision ? { decision: planning.decision } : {}) };
      return { ...planning, executor };
    },
  },
];

/** Every check that needs no write, in the design's order: decide() (which also decides what is listed), then PLAN_STEPS. */
export async function plan(access: Access, tool: string, args: Record<string, unknown>, settings: Pick<GuardSettings, "defaultTimeoutMs">): Promise<Plan> {
  const allowed = decide(access, tool);
  if (!allowed.allowed) return { kind: "refuse", error: allowed.error, group: allowed.group };
  let planning: Planning = { access, tool, allowed, args };
  for (const step of PLAN_STEPS) {
    const next = await step.run(planning);
    if ("kind" in next) return next;
    planning = next;
  }
  const { policy } = allowed;
  const executor = planning.executor!;
  const decision = planning.decision!;
  const timeoutMs = policy.timeoutMs ?? (executor.type === "http" || executor.type === "mcp" ? executor.timeoutMs : undefined) ?? settings.defaultTimeoutMs;
  const confirm = decision.effect === "ask" || (decision.effect !== "allow" && needsConfirmation(policy));
  return { kind: "admit", group: allowed.group.id, executor, args: planning.args, policy, timeoutMs, decision, confirm };
}

/** How the call lifecycle sees an admitted plan: what it waits for and how long it may run. */
export const admissionOf = (planned: Admitted) => ({
  needsConfirmation: planned.confirm,
  executedBy: planned.executor.type === "client" ? ("client" as const) : ("toolgate" as const),
  timeoutMs: planned.timeoutMs,
});
