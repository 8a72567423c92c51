import { forbidden, notFound, ToolgateError } from "../error";
import type { Db } from "../dynamo/client";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import type { Group } from "../group/index";
import type { ToolGroupManager } from "../group/manager";
import type { Agent } from "../agent/schema";
import { effectivePolicy, permissionProblem } from "../policy/index";
import type { EffectivePolicy, PolicyOverride } from "../policy/index";
import { effectiveToolGroups } from "../role/index";
import type { Role } from "../role/schema";
import { forAgent } from "../tool/definition";
import type { AgentToolDefinition, ToolDefinition } from "../tool/definition";

/** What one agent may see and call, decided from its role, its own attributes and the catalog with its policy overrides. */
export type Access = {
  agent: Agent;
  role: Role;
  manager: ToolGroupManager;
  overrides: ReadonlyMap<string, PolicyOverride>;
  groups: string[];
};

export type Decision =
  | { allowed: true; group: Group; definition: ToolDefinition; policy: EffectivePolicy }
  | { allowed: false; error: ToolgateError; group: string | null };

export const accessOf = (agent: Agent, role: Role, snapshot: Pick<CatalogSnapshot, "manager" | "overrides">): Access => ({
  agent,
  role,
  manager: snapshot.manager,
  overrides: snapshot.overrides,
  groups: effectiveToolGroups(role, snapshot.manager),
});

export async function accessFor(db: Db, catalog: Catalog, agent: Agent): Promise<Access> {
  const { role, catalogVersion } = await getRoleAndCatalogVersion(db, agent.roleId);
  if (!role) throw forbidden("role_not_found", `The agent's role "${agent.roleId}" no longer exists, so it has no tools.`);
  return accessOf(agent, role, await catalog.at(catalogVersion));
}

export const refusals = {
  unknown: (tool: string) => notFound("unknown_tool", `There is no tool named "${tool}".`, { toolName: tool, recoverable: false }),
  notAvailable: (tool: string, role: Role, group: string) =>
    forbidden(
      "tool_not_available",
      `The tool "${tool}" is not available to the role "${role.name}": its group "${group}" is not one of the role's tool groups.`,
      { toolName: tool, recoverable: false },
    ),
  disabled: (tool: string) =>
    forbidden("tool_disabled", `The tool "${tool}" has been disabled by an administrator.`, { toolName: tool, recoverable: false }),
  permission: (tool: string, reason: string) =>
    forbidden("permission_denied", `You may not use the tool "${tool}": ${reason}.`, { toolName: tool, reason, recoverable: false }),
};

const groupSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function includesGroup(groups: readonly string[], groupId: string) {
  let set = groupSets.get(groups);
  if (!set) groupSets.set(groups, (set = new Set(groups)));
  return set.has(groupId);
}

/**
 * The single authorisation decision, in the guard's order: the tool exists, is in the role's groups, is enabled,
 * and its policy admits this agent. visibleTools lists a tool exactly when this allows it.
 */
export function decide(access: Access, toolName: string): Decision {
  const found = access.manager.findTool(toolName);
  if (!found) return { allowed: false, group: null, error: refusals.unknown(toolName) };
  const group = found.group.id;
  if (!includesGroup(access.groups, group)) return { allowed: false, group, error: refusals.notAvailable(toolName, access.role, group) };
  const policy = effectivePolicy(found.definition, access.overrides.get(toolName));
  if (policy.disabled) return { allowed: false, group, error: refusals.disabled(toolName) };
  const problem = permissionProblem(policy, access.role, access.agent);
  if (problem) return { allowed: false, group, error: refusals.permission(toolName, problem) };
  return { allowed: true, group: found.group, definition: found.definition, policy };
}

/** The agent-facing definitions of every tool decide() allows, each once, in group then tool order. */
export function visibleTools(access: Access): AgentToolDefinition[] {
  const visible: AgentToolDefinition[] = [];
  for (const groupId of access.groups)
    for (const definition of access.manager.getGroup(groupId)?.tools ?? [])
      if (decide(access, definition.function.name).allowed) visible.push(forAgent(definition));
  return visible;
}

const serialised = new WeakMap<ToolGroupManager, WeakMap<ReadonlyMap<string, PolicyOverride>, Map<string, string>>>();
const MAX_SERIALISED_PER_SNAPSHOT = 256;

/** Everything decide() reads besides the catalog: two agents with equal keys see the same tools. */
const accessKey = ({ groups, role, agent }: Access) =>
  JSON.stringify([groups, role.name.toLowerCase(), agent.department, agent.level]);

/** visibleTools as JSON, built once per catalog snapshot and access key: agents ask for it on every turn. */
export function visibleToolsJson(access: Access): string {
  const byOverrides = serialised.get(access.manager) ?? new WeakMap();
  serialised.set(access.manager, byOverrides);
  const byKey = byOverrides.get(access.overrides) ?? new Map<string, string>();
  byOverrides.set(access.overrides, byKey);
  const key = accessKey(access);
  let json = byKey.get(key);
  if (json === undefined) {
    json = JSON.stringify(visibleTools(access));
    if (byKey.size >= MAX_SERIALISED_PER_SNAPSHOT) byKey.clear();
    byKey.set(key, json);
  }
  return json;
}
