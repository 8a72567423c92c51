import { forbidden, notFound, ToolgateError } from "../error";
import type { Db } from "../dynamo/client";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import type { Catalog } from "../group/catalog";
import type { Group } from "../group/index";
import type { ToolGroupManager } from "../group/manager";
import type { Agent } from "../agent/schema";
import { effectiveToolGroups } from "../role/index";
import type { Role } from "../role/schema";
import type { AgentToolDefinition, ToolDefinition } from "../tool/definition";

/** What one agent may see and call, decided once from its role and the catalog. */
export type Access = { agent: Agent; role: Role; manager: ToolGroupManager; groups: string[] };

export type Decision =
  | { allowed: true; group: Group; definition: ToolDefinition }
  | { allowed: false; error: ToolgateError; group: string | null };

export async function accessFor(db: Db, catalog: Catalog, agent: Agent): Promise<Access> {
  const { role, catalogVersion } = await getRoleAndCatalogVersion(db, agent.roleId);
  if (!role)
    throw forbidden("role_not_found", `The agent's role "${agent.roleId}" no longer exists, so it has no tools.`);
  const { manager } = await catalog.at(catalogVersion);
  return { agent, role, manager, groups: effectiveToolGroups(role, manager) };
}

export const visibleTools = (access: Access): AgentToolDefinition[] => access.manager.getToolDefinitions(access.groups);

const serialised = new WeakMap<ToolGroupManager, Map<string, string>>();

/** visibleTools as JSON, built once per catalog snapshot and set of groups: agents ask for it on every turn. */
export function visibleToolsJson(access: Access): string {
  const byGroups = serialised.get(access.manager) ?? new Map<string, string>();
  serialised.set(access.manager, byGroups);
  const key = access.groups.join("\n");
  let json = byGroups.get(key);
  if (json === undefined) {
    json = JSON.stringify(visibleTools(access));
    if (byGroups.size >= 256) byGroups.clear();
    byGroups.set(key, json);
  }
  return json;
}

/** The single authorisation decision; a tool is callable exactly when visibleTools lists it. */
export function decide(access: Pick<Access, "manager" | "groups" | "role">, toolName: string): Decision {
  const found = access.manager.findTool(toolName);
  if (!found)
    return {
      allowed: false,
      group: null,
      error: notFound("unknown_tool", `There is no tool named "${toolName}".`, { toolName, recoverable: false }),
    };
  if (!access.manager.isToolInGroups(toolName, access.groups))
    return {
      allowed: false,
      group: found.group.id,
      error: forbidden(
        "tool_not_available",
        `The tool "${toolName}" is not available to the role "${access.role.name}": its group "${found.group.id}" is not one of the role's tool groups.`,
        { toolName, recoverable: false },
      ),
    };
  return { allowed: true, ...found };
}
