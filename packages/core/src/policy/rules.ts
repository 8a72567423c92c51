import type { Agent } from "../agent/schema";
import type { Role } from "../role/schema";
import type { ToolDefinition } from "../tool/schema";
import type { ToolPolicy } from "./schema";
import type { PolicyOverride } from "./schema";

export type EffectivePolicy = ToolPolicy & { disabled: boolean };

const computed = new WeakMap<ToolDefinition, { override: PolicyOverride | undefined; policy: EffectivePolicy }>();

/**
 * The policy the guard applies to a tool: its definition's `x-toolgate`, overridden field by field by an admin's
 * override. Computed once per definition and override (both are replaced, never changed, when a catalog changes), for
 * the guard, the tool list, the tools page and a role's token counts alike.
 */
export function effectivePolicy(definition: ToolDefinition, override: PolicyOverride | undefined): EffectivePolicy {
  const known = computed.get(definition);
  if (known && known.override === override) return known.policy;
  const policy: EffectivePolicy = { ...(definition["x-toolgate"] ?? {}), ...(override?.policy ?? {}), disabled: override?.disabled ?? false };
  computed.set(definition, { override, policy });
  return policy;
}

/** Whether an admin changed any field of the tool's own policy (switching it off and on is `disabled`, not this). */
export const isOverridden = (override: PolicyOverride | undefined) => Object.keys(override?.policy ?? {}).length > 0;

export const needsConfirmation = (policy: ToolPolicy) => policy.dangerous === true || policy.requireConfirmation === true;

/** Why the agent may not use the tool under its policy, or null when it may. */
export function permissionProblem(policy: ToolPolicy, role: Pick<Role, "name">, agent: Pick<Agent, "department" | "level">): string | null {
  if (policy.allowedRoles?.length && !policy.allowedRoles.some((name) => name.toLowerCase() === role.name.toLowerCase()))
    return `only the roles ${policy.allowedRoles.join(", ")} may use it, and this agent's role is "${role.name}"`;
  if (policy.allowedDepartments?.length && (agent.department === null || !policy.allowedDepartments.includes(agent.department)))
    return `only agents of the departments ${policy.allowedDepartments.join(", ")} may use it, and this agent's department is ${agent.department === null ? "not set" : `"${agent.department}"`}`;
  if (policy.minLevel !== undefined && (agent.level === null || agent.level < policy.minLevel))
    return `it needs level ${policy.minLevel} or above, and this agent's level is ${agent.level === null ? "not set" : agent.level}`;
  return null;
}
