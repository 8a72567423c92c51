import { decide } from "../access/index";
import type { Access } from "../access/index";
import type { Executor } from "../executor/schema";
import { needsConfirmation } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
import type { ToolgateError } from "../error";
import { loadArgumentValidator, validateArguments } from "./arguments";
import { refusal } from "./refusal";
import type { GuardSettings } from "./settings";

export type Plan =
  | { kind: "refuse"; error: ToolgateError; group: string | null }
  | { kind: "admit"; group: string; executor: Executor; args: Record<string, unknown>; policy: EffectivePolicy; timeoutMs: number };

export type Admitted = Extract<Plan, { kind: "admit" }>;

/** Every check that needs no write, in the design's order; the first four are decide(), which also decides what is listed. */
export async function plan(access: Access, tool: string, args: Record<string, unknown>, settings: Pick<GuardSettings, "defaultTimeoutMs">): Promise<Plan> {
  const decision = decide(access, tool);
  if (!decision.allowed) return { kind: "refuse", error: decision.error, group: decision.group };
  await loadArgumentValidator();
  const { policy } = decision;
  const group = decision.group.id;
  const validated = validateArguments(decision.definition, args, policy.strict === true);
  if (!validated.valid) return { kind: "refuse", error: refusal.invalidArguments(tool, validated.issues), group };
  const executor = decision.group.executor;
  if (!executor) return { kind: "refuse", error: refusal.noExecutor(tool, group), group };
  const timeoutMs = policy.timeoutMs ?? (executor.type === "http" || executor.type === "mcp" ? executor.timeoutMs : undefined) ?? settings.defaultTimeoutMs;
  return { kind: "admit", group, executor, args: validated.value, policy, timeoutMs };
}

/** How the call lifecycle sees an admitted plan: what it waits for and how long it may run. */
export const admissionOf = (planned: Admitted) => ({
  needsConfirmation: needsConfirmation(planned.policy),
  executedBy: planned.executor.type === "client" ? ("client" as const) : ("toolgate" as const),
  timeoutMs: planned.timeoutMs,
});
