import type { Db } from "../dynamo/client";
import { readAgent } from "../dynamo/agents";
import { getRole } from "../dynamo/roles";
import { scopeOf } from "./schema";
import type { Scope } from "./schema";

/**
 * What is wrong with a scope that names a role or an agent that does not exist (it would apply to nobody, silently),
 * or undefined. A department is only a name agents carry, so one no agent has yet is accepted.
 */
export async function missingInScope(db: Db, scope: Scope): Promise<string | undefined> {
  const named = scopeOf(scope);
  if (named.kind === "role" && !(await getRole(db, named.name)))
    return `The scope "${scope}" names no role: there is no role with the id "${named.name}" (roles are named by id here, as GET /roles shows).`;
  if (named.kind === "agent" && !(await readAgent(db, named.name))) return `The scope "${scope}" names no agent: there is no agent with the id "${named.name}".`;
  return undefined;
}
