import type { Db } from "../dynamo/client";
import { readAgent } from "../dynamo/agents";
import { getRole } from "../dynamo/roles";
import type { PolicyProblem } from "./cedar/read";
import type { PolicyScope } from "./schema";

export type ScopeOf = { kind: "system" } | { kind: "department" | "role" | "agent"; name: string };

/** A scope as written ("system", "department:<name>", "role:<roleId>", "agent:<agentId>"), taken apart. */
export function scopeOf(scope: PolicyScope): ScopeOf {
  if (scope === "system") return { kind: "system" };
  const at = scope.indexOf(":");
  return { kind: scope.slice(0, at) as "department" | "role" | "agent", name: scope.slice(at + 1) };
}

/**
 * A scope naming a role or an agent that does not exist would apply to nobody, silently: a problem, as an unknown tool
 * is. A department is only a name agents carry, so one no agent has yet is accepted.
 */
export async function scopeProblem(db: Db, scope: PolicyScope): Promise<PolicyProblem | undefined> {
  const named = scopeOf(scope);
  if (named.kind === "role" && !(await getRole(db, named.name)))
    return { message: `The scope "${scope}" names no role: there is no role with the id "${named.name}" (roles are named by id here, as GET /roles shows).` };
  if (named.kind === "agent" && !(await readAgent(db, named.name)))
    return { message: `The scope "${scope}" names no agent: there is no agent with the id "${named.name}".` };
  return undefined;
}
