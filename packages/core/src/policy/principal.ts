import type { Agent } from "../agent/schema";
import type { Role } from "../role/schema";

/** Who calls, as the policies' principal and scopes see it. */
export type Principal = { agentId: string; roleId: string; roleName: string; department: string | null; level: number | null };

export const principalOf = (agent: Pick<Agent, "id" | "department" | "level">, role: Pick<Role, "id" | "name">): Principal => ({
  agentId: agent.id,
  roleId: role.id,
  roleName: role.name,
  department: agent.department,
  level: agent.level,
});
