import { decide } from "../access/index";
import type { Access } from "../access/index";
import type { Executor } from "../executor/schema";
import { ToolgateError } from "../error";
import { policyIndex } from "../policy/applicable";
import { decideCall } from "../policy/evaluate";
import type { PolicyDecision } from "../policy/evaluate";
import { policyDenied } from "../policy/refusals";
import { needsConfirmation } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
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
  const applicable = policyIndex(access.policies).applicable(tool, group, { agentId: agent.id, roleId: role.id, department: agent.department });
  const principal = { agentId: agent.id, roleId: role.id, roleName: role.name, department: agent.department, level: agent.level };
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

/** Every check that needs no write, in the design's order; the first four are decide(), which also decides what is listed. */
export async function plan(access: Access, tool: string, args: Record<string, unknown>, settings: Pick<GuardSettings, "defaultTimeoutMs">): Promise<Plan> {
  const decision = decide(access, tool);
  if (!decision.allowed) return { kind: "refuse", error: decision.error, group: decision.group };
  await loadArgumentValidator();
  const { policy } = decision;
  const group = decision.group.id;
  const validated = validateArguments(decision.definition, args, policy.strict === true);
  if (!validated.valid) return { kind: "refuse", error: refusal.invalidArguments(tool, validated.issues), group };
  const decided = await policyDecision(access, decision.definition, group, validated.value);
  if (decided.error) return { kind: "refuse", error: decided.error, group, ...(decided.decision ? { decision: decided.decision } : {}) };
  const executor = decision.group.executor;
  if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, group), group, decision: decided.decision };
  const timeoutMs = policy.timeoutMs ?? (executor.type === "http" || executor.type === "mcp" ? executor.timeoutMs : undefined) ?? settings.defaultTimeoutMs;
  const { effect } = decided.decision;
  const confirm = effect === "ask" || (effect !== "allow" && needsConfirmation(policy));
  return { kind: "admit", group, executor, args: validated.value, policy, timeoutMs, decision: decided.decision, confirm };
}

/** How the call lifecycle sees an admitted plan: what it waits for and how long it may run. */
export const admissionOf = (planned: Admitted) => ({
  needsConfirmation: planned.confirm,
  executedBy: planned.executor.type === "client" ? ("client" as const) : ("toolgate" as const),
  timeoutMs: planned.timeoutMs,
});
