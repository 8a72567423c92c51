import * as z from "zod";

/**
 * Who something applies to, written the same way for policies and tool groups: everyone ("system"), a department
 * ("department:<name>"), a role ("role:<roleId>", policies only) or one agent ("agent:<agentId>").
 */
export const Scope = z
  .string()
  .max(200)
  .regex(/^(system|department:.+|role:.+|agent:.+)$/, 'must be "system", "department:<name>", "role:<roleId>" or "agent:<agentId>"');
export type Scope = z.infer<typeof Scope>;

/** A group's scope: a group belongs to everyone, a department or one agent (a role picks groups by id instead). */
export const GroupScope = z
  .string()
  .max(200)
  .regex(/^(system|department:.+|agent:.+)$/, 'must be "system", "department:<name>" or "agent:<agentId>"');
export type GroupScope = z.infer<typeof GroupScope>;

export const SYSTEM = "system";

export type ScopeOf = { kind: "system" } | { kind: "department" | "role" | "agent"; name: string };

/** A scope as written, taken apart. */
export function scopeOf(scope: Scope): ScopeOf {
  if (scope === SYSTEM) return { kind: "system" };
  const at = scope.indexOf(":");
  return { kind: scope.slice(0, at) as "department" | "role" | "agent", name: scope.slice(at + 1) };
}

/** Who an agent is, as scopes name it. */
export type Reach = { agentId: string; roleId: string; department: string | null };

/** Whether a scope applies to this agent. */
export function reaches(scope: Scope, reach: Reach): boolean {
  const named = scopeOf(scope);
  if (named.kind === "system") return true;
  if (named.kind === "department") return reach.department === named.name;
  if (named.kind === "role") return reach.roleId === named.name;
  return reach.agentId === named.name;
}

/** The group scopes that reach an agent, narrowest first: its own, its department's, then everyone's. */
export const groupScopesOf = (reach: Pick<Reach, "agentId" | "department">): GroupScope[] => [
  `agent:${reach.agentId}`,
  ...(reach.department !== null ? [`department:${reach.department}`] : []),
  SYSTEM,
];

/** How narrow a group scope is: 0 for everyone's, 1 for a department's, 2 for one agent's. */
export const narrowness = (scope: GroupScope): number => ({ system: 0, department: 1, agent: 2 })[scopeOf(scope).kind as "system" | "department" | "agent"];
