import type { Agent } from "../agent/schema";
import type { Role } from "../role/schema";
import type { ToolDefinition } from "../tool/schema";
import type { ToolPolicy } from "./schema";
import type { PolicyOverride } from "./schema";
import { SYSTEM } from "../scope/schema";
import type { GroupScope } from "../scope/schema";

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

/** Where an admin's override of a tool's settings for one scope is kept: everyone's under the tool's name, as before scopes. */
export const overrideKey = (toolName: string, scope: GroupScope) => (scope === SYSTEM ? toolName : `${toolName}@${scope}`);

const lowest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
/** 0 switches the repeat check off, so of two limits the stricter is the lower one that is not 0. */
const lowestRepeatLimit = (a: number | undefined, b: number | undefined) => (a === 0 ? b : b === 0 ? a : lowest(a, b));
const both = (a: string[] | undefined, b: string[] | undefined) => (a === undefined ? b : b === undefined ? a : a.filter((item) => b.includes(item)));
const either = (a: string[] | undefined, b: string[] | undefined) => (a === undefined ? b : b === undefined ? a : [...new Set([...a, ...b])]);
const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

/**
 * A wider layer's settings tightened by a narrower layer's override, never loosened: the lowest rate limits, timeout and
 * repeat limit, confirmation or danger or strict checking if any layer asks for it, disabled if any layer disables it,
 * only roles and departments both allow, the higher level; the arguments either names as paths or commands; the
 * narrower's hints, category and tags.
 */
export function tightened(wider: EffectivePolicy, narrower: PolicyOverride): EffectivePolicy {
  const policy = narrower.policy ?? {};
  const perMinute = lowest(wider.rateLimit?.perMinute, policy.rateLimit?.perMinute);
  const perHour = lowest(wider.rateLimit?.perHour, policy.rateLimit?.perHour);
  return defined({
    ...wider,
    readOnly: policy.readOnly ?? wider.readOnly,
    idempotent: policy.idempotent ?? wider.idempotent,
    openWorld: policy.openWorld ?? wider.openWorld,
    category: policy.category ?? wider.category,
    tags: policy.tags ?? wider.tags,
    timeoutMs: lowest(wider.timeoutMs, policy.timeoutMs),
    rateLimit: perMinute === undefined && perHour === undefined ? undefined : defined({ perMinute, perHour }),
    repeatLimit: lowestRepeatLimit(wider.repeatLimit, policy.repeatLimit),
    dangerous: wider.dangerous || policy.dangerous || undefined,
    requireConfirmation: wider.requireConfirmation || policy.requireConfirmation || undefined,
    strict: wider.strict || policy.strict || undefined,
    allowedRoles: both(wider.allowedRoles, policy.allowedRoles),
    allowedDepartments: both(wider.allowedDepartments, policy.allowedDepartments),
    minLevel: wider.minLevel === undefined ? policy.minLevel : Math.max(wider.minLevel, policy.minLevel ?? 0),
    pathArguments: either(wider.pathArguments, policy.pathArguments),
    commandArguments: either(wider.commandArguments, policy.commandArguments),
    disabled: wider.disabled || narrower.disabled === true,
  });
}

/**
 * The settings the guard applies to a tool for one agent: the tool's own (its definition, in front for the agent) with
 * everyone's override, then tightened by its department's and its own overrides, in that order.
 */
export function layeredPolicy(definition: ToolDefinition, overrides: ReadonlyMap<string, PolicyOverride>, scopes: readonly GroupScope[]): EffectivePolicy {
  const toolName = definition.function.name;
  let policy = effectivePolicy(definition, overrides.get(toolName));
  for (const scope of scopes) {
    const narrower = scope === SYSTEM ? undefined : overrides.get(overrideKey(toolName, scope));
    if (narrower) policy = tightened(policy, narrower);
  }
  return policy;
}

const overriddenScopes = new WeakMap<ReadonlyMap<string, PolicyOverride>, ReadonlySet<string>>();

/** The department and agent scopes some override names, worked out once per set of overrides. */
export function scopesOverridden(overrides: ReadonlyMap<string, PolicyOverride>): ReadonlySet<string> {
  let scopes = overriddenScopes.get(overrides);
  if (!scopes) {
    scopes = new Set([...overrides.keys()].flatMap((key) => (key.includes("@") ? [key.slice(key.indexOf("@") + 1)] : [])));
    overriddenScopes.set(overrides, scopes);
  }
  return scopes;
}
