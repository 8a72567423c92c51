import type { Agent } from "../agent/schema";
import type { Role } from "../role/schema";
import { isWithin } from "./facts/path";

/** The root an agent's paths are resolved against: its own when it lies inside its role's (as it did when it was created), else the role's. */
export function workspaceRootOf(role: Pick<Role, "workspaceRoot">, agent: Pick<Agent, "workspaceRoot">): string | null {
  const own = agent.workspaceRoot ?? null;
  const roles = role.workspaceRoot ?? null;
  if (own === null) return roles;
  return roles === null || isWithin(roles, own) ? own : roles;
}
