import type { ToolgateError } from "../error";
import type { Db } from "../dynamo/client";
import { accessError } from "./errors";
import { getRoleAndCatalogVersion } from "../dynamo/roles";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import type { Group } from "../group/schema";
import type { FoundTool, ToolGroupManager } from "../group/manager";
import type { Agent } from "../agent/schema";
import { layeredPolicy, permissionProblem, scopesOverridden } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
import type { PolicyOverride } from "../policy/schema";
import type { StoredPolicy } from "../policy/schema";
import { deniedWhateverTheArguments, prepareListing } from "../policy/listing";
import { policyIndex } from "../policy/applicable";
import { effectiveToolGroups, groupsToLoad, ROOT_ROLE_ID, usesAllGroups } from "../role/index";
import { groupScopesOf, SYSTEM } from "../scope/schema";
import type { GroupScope } from "../scope/schema";
import { scopeOfGroup } from "../group/schema";
import type { RoleCache } from "../role/cache";
import type { Role } from "../role/schema";
import { metaGroup, metaTool } from "../builtin/tool-search";
import { forAgent } from "../tool/schema";
import { totalTokens } from "../tool/tokens";
import { exportTool } from "../tool/exports";
import type { ToolFormat } from "../tool/exports";
import type { TokenCounter } from "../tool/tokens";
import type { AgentToolDefinition, ToolDefinition } from "../tool/schema";

/** What one agent may see and call, decided from its role, its own attributes and the catalog with its policy overrides. */
export { ACCESS_ERRORS, accessError } from "./errors";

export type Access = {
  agent: Agent;
  role: Role;
  manager: ToolGroupManager;
  overrides: ReadonlyMap<string, PolicyOverride>;
  /** The Cedar policies about calls, and their revision (the catalog's version). */
  policies: ReadonlyMap<string, StoredPolicy>;
  revision: number;
  groups: string[];
  /** The group scopes that reach the agent, narrowest first: its own, its department's, everyone's. */
  scopes: GroupScope[];
  /** The department and agent scopes whose overrides tighten the agent's tools' settings, widest first. */
  layers: GroupScope[];
  /** The whole catalog, not only the role's groups: only then does a tool in none of them not exist. */
  complete: boolean;
};

export type Decision =
  | { allowed: true; group: Group; definition: ToolDefinition; policy: EffectivePolicy }
  | { allowed: false; error: ToolgateError; group: string | null };

export function accessOf(agent: Agent, role: Role, snapshot: Pick<CatalogSnapshot, "version" | "manager" | "overrides" | "policies" | "partial">): Access {
  const narrower = scopesToLoad(agent, role);
  return {
    agent,
    role,
    manager: snapshot.manager,
    overrides: snapshot.overrides,
    policies: snapshot.policies,
    revision: snapshot.version,
    groups: reachedGroups(role, snapshot.manager, narrower),
    scopes: groupScopesOf({ agentId: agent.id, department: agent.department ?? null }),
    layers: narrower.filter((scope) => scopesOverridden(snapshot.overrides).has(scope)).reverse(),
    complete: !snapshot.partial,
  };
}

/** The scopes whose groups an agent may reach beside everyone's, narrowest first: its own and its department's (none for root, which is fixed). */
export const scopesToLoad = (agent: Pick<Agent, "id" | "department">, role: Pick<Role, "id">): GroupScope[] =>
  role.id === ROOT_ROLE_ID ? [] : groupScopesOf({ agentId: agent.id, department: agent.department ?? null }).filter((scope) => scope !== SYSTEM);

/**
 * The groups an agent may use: those its role picks that reach it (everyone's, or its department's), its department's
 * when the role leaves its groups unset, and its own, always. Root stays fixed to its groups.
 */
function reachedGroups(role: Role, manager: ToolGroupManager, narrower: readonly GroupScope[]): string[] {
  const picked = effectiveToolGroups(role, manager);
  if (role.id === ROOT_ROLE_ID) return picked;
  // A role that leaves its groups unset picks everyone's, all of which reach the agent; one that names them may name a department's.
  const usesAll = usesAllGroups(role);
  const inReach = usesAll ? picked : picked.filter((id) => [...narrower, SYSTEM].includes(scopeOfGroup(manager.getGroup(id)!)));
  const scoped = narrower.flatMap((scope) => (usesAll || scope.startsWith("agent:") ? manager.getAllGroupIds(scope) : []));
  return [...new Set([...inReach, ...scoped])];
}

/** An agent's access with the catalog version it was decided on, and whether its role and catalog were just read. */
export type View = { access: Access; version: number; fresh: boolean };

export type ViewDeps = { db: Db; catalog: Catalog; roles: RoleCache };

export const roleGone = (roleId: string) => accessError("role_not_found", `The agent's role "${roleId}" no longer exists, so it has no tools.`);

export const viewOf = (agent: Agent, role: Role, snapshot: CatalogSnapshot, fresh: boolean): View => ({
  access: accessOf(agent, role, snapshot),
  version: snapshot.version,
  fresh,
});

/** A role and catalog version just read (in one round trip with whatever else the caller needed) as a fresh view. */
export async function viewFrom(deps: ViewDeps, agent: Agent, read: { role?: Role; catalogVersion: number }): Promise<View> {
  if (!read.role) {
    deps.roles.forget(agent.roleId);
    throw roleGone(agent.roleId);
  }
  deps.roles.remember(read.role);
  const snapshot = await deps.catalog.forGroups(groupsToLoad(read.role), read.catalogVersion, scopesToLoad(agent, read.role));
  await prepareListing(snapshot.policies);
  return viewOf(agent, read.role, snapshot, true);
}

/** The same view over the whole catalog, at its version: for decisions about groups beyond the agent's own. */
export async function completeView(deps: ViewDeps, view: View): Promise<View> {
  if (view.access.complete) return view;
  const snapshot = await deps.catalog.at(view.version);
  await prepareListing(snapshot.policies);
  return { ...view, access: accessOf(view.access.agent, view.access.role, snapshot) };
}

/**
 * A view that can decide about this tool: one holding only the role's groups cannot tell a tool of another group
 * (tool_not_available) from one that does not exist (unknown_tool), so for a tool in none of them it becomes complete.
 */
export const viewDeciding = (deps: ViewDeps, view: View, toolName: string): Promise<View> | View =>
  view.access.complete || metaTool(toolName) || view.access.manager.findTool(toolName) ? view : completeView(deps, view);

/**
 * The one loader of what an agent may see and call, for listing, authorising and approving: "fresh" reads its role
 * and the catalog version now (one round trip); "cached" uses what this process remembers, to be proven current by
 * the write that admits a call.
 */
export async function loadView(deps: ViewDeps, agent: Agent, mode: "cached" | "fresh"): Promise<View> {
  if (mode === "fresh") return viewFrom(deps, agent, await getRoleAndCatalogVersion(deps.db, agent.roleId));
  const role = await deps.roles.get(agent.roleId);
  if (!role) throw roleGone(agent.roleId);
  const groups = groupsToLoad(role);
  const scopes = scopesToLoad(agent, role);
  const snapshot = deps.catalog.peekForGroups(groups, scopes) ?? (await deps.catalog.currentForGroups(groups, scopes));
  await prepareListing(snapshot.policies);
  return viewOf(agent, role, snapshot, false);
}

export const refusals = {
  unknown: (tool: string) => accessError("unknown_tool", `There is no tool named "${tool}".`, { toolName: tool, recoverable: false }),
  notAvailable: (tool: string, role: Role, group: string) =>
    accessError(
      "tool_not_available",
      `The tool "${tool}" is not available to the role "${role.name}": its group "${group}" is not one of the role's tool groups.`,
      { toolName: tool, recoverable: false },
    ),
  disabled: (tool: string) =>
    accessError("tool_disabled", `The tool "${tool}" has been disabled by an administrator.`, { toolName: tool, recoverable: false }),
  permission: (tool: string, reason: string) =>
    accessError("permission_denied", `You may not use the tool "${tool}": ${reason}.`, { toolName: tool, reason, recoverable: false }),
};

const groupSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function includesGroup(groups: readonly string[], groupId: string) {
  let set = groupSets.get(groups);
  if (!set) groupSets.set(groups, (set = new Set(groups)));
  return set.has(groupId);
}

/**
 * A tool of the catalog as this agent meets it, or one of the meta tools every agent has (search_tools, call_tool), with
 * the group it belongs to: of the tools of that name in scopes that reach the agent, the narrowest in a group it may
 * use is in front; with none in such a group, the widest (refused as not available). Another department's or another
 * agent's tools do not exist for it.
 */
function lookUp(access: Access, toolName: string): { group: Group; definition: ToolDefinition; inRole: boolean } | undefined {
  const meta = metaTool(toolName);
  if (meta) return { group: metaGroup(), definition: meta, inRole: true };
  let widest: FoundTool | undefined;
  for (const scope of access.scopes) {
    const found = access.manager.toolIn(scope, toolName);
    if (!found) continue;
    if (includesGroup(access.groups, found.group.id)) return { ...found, inRole: true };
    widest = found;
  }
  return widest && { ...widest, inRole: false };
}

type Found = { group: Group; definition: ToolDefinition; inRole: boolean; policy: EffectivePolicy };

/** What decides whether an agent may call a tool at all, in the guard's order: the first that refuses decides. */
const ACCESS_CHECKS: ReadonlyArray<{ check: string; refuses: (found: Found, access: Access, tool: string) => ToolgateError | null }> = [
  { check: "the tool is in the role's groups", refuses: (found, access, tool) => (found.inRole ? null : refusals.notAvailable(tool, access.role, found.group.id)) },
  { check: "the tool is enabled", refuses: (found, _access, tool) => (found.policy.disabled ? refusals.disabled(tool) : null) },
  {
    check: "its permissions admit the agent",
    refuses: (found, access, tool) => {
      const problem = permissionProblem(found.policy, access.role, access.agent);
      return problem ? refusals.permission(tool, problem) : null;
    },
  },
  {
    check: "no deny policy that reads no argument applies",
    refuses: (found, access, tool) => deniedWhateverTheArguments(access.policies, access.agent, access.role, tool, found.group.id),
  },
];

/**
 * The single authorisation decision: the tool exists, then ACCESS_CHECKS in order. The tool list is drawn from what
 * this allows (listedTools), so an agent sees exactly what it may call.
 */
export function decide(access: Access, toolName: string): Decision {
  const looked = lookUp(access, toolName);
  if (!looked) return { allowed: false, group: null, error: refusals.unknown(toolName) };
  const found = { ...looked, policy: layeredPolicy(looked.definition, access.overrides, access.layers) };
  for (const { refuses } of ACCESS_CHECKS) {
    const error = refuses(found, access, toolName);
    if (error) return { allowed: false, group: found.group.id, error };
  }
  return { allowed: true, group: found.group, definition: found.definition, policy: found.policy };
}

export type Allowed = Extract<Decision, { allowed: true }>;

/** The tools of one group decide() allows: a tool another group of the agent's shadows is that group's, not this one's. */
const allowedOf = (access: Access, groupId: string, definitions: readonly ToolDefinition[]): Allowed[] =>
  definitions.flatMap((definition) => {
    const decision = decide(access, definition.function.name);
    return decision.allowed && decision.group.id === groupId ? [decision] : [];
  });

/** Every tool of the agent's groups decide() allows, each once, in group then tool order, with its group and effective policy. */
export const allowedTools = (access: Access): Allowed[] =>
  access.groups.flatMap((groupId) => allowedOf(access, groupId, access.manager.getGroup(groupId)?.tools ?? []));

const loadingOf = (role: Role) => role.toolLoading ?? "all";

/**
 * The tools in the agent's tool list, as its role loads them. "all": every tool it may call. "search": the pinned ones,
 * then search_tools and call_tool, which reach the rest; what it may call is the same either way (decide()).
 */
export function listedTools(access: Access): Allowed[] {
  const allowed = allowedTools(access);
  if (loadingOf(access.role) === "all") return allowed;
  const pinned = new Set(access.role.pinnedTools);
  return [...allowed.filter(({ definition }) => pinned.has(definition.function.name)), ...allowedOf(access, metaGroup().id, metaGroup().tools)];
}

/** The tools a role in search mode leaves out of the list, for clients that load them on demand (Anthropic's defer_loading). */
export function deferredTools(access: Access): Allowed[] {
  if (loadingOf(access.role) === "all") return [];
  const pinned = new Set(access.role.pinnedTools);
  return allowedTools(access).filter(({ definition }) => !pinned.has(definition.function.name));
}

/** The agent-facing definitions of the tools in its list. */
export const visibleTools = (access: Access): AgentToolDefinition[] => listedTools(access).map(({ definition }) => forAgent(definition));

const MAX_VIEWS_PER_SNAPSHOT = 256;

/** Everything decide() reads besides the catalog: two agents with equal keys see the same tools. */
const accessKey = ({ groups, layers, role, agent, policies }: Access) =>
  JSON.stringify([
    groups,
    layers,
    role.name.toLowerCase(),
    agent.department,
    agent.level,
    loadingOf(role),
    role.pinnedTools,
    // A deny policy that reads no arguments may name a role or an agent: then those decide what is listed too.
    ...(policyIndex(policies).deniesWithoutArguments ? [role.id, agent.id] : []),
  ]);

type PerSnapshot<T> = WeakMap<ToolGroupManager, WeakMap<ReadonlyMap<string, PolicyOverride>, Map<string, T>>>;

/** A value derived from what an agent may see, computed once per catalog snapshot and access key. */
function perAccess<T>(cache: PerSnapshot<T>, access: Access, compute: () => T): T {
  const byOverrides = cache.get(access.manager) ?? new WeakMap();
  cache.set(access.manager, byOverrides);
  const byKey = byOverrides.get(access.overrides) ?? new Map<string, T>();
  byOverrides.set(access.overrides, byKey);
  const key = accessKey(access);
  if (byKey.has(key)) return byKey.get(key)!;
  const value = compute();
  if (byKey.size >= MAX_VIEWS_PER_SNAPSHOT) byKey.clear();
  byKey.set(key, value);
  return value;
}

const serialised: PerSnapshot<string> = new WeakMap();
const tokens: PerSnapshot<number> = new WeakMap();

const exported = new Map<ToolFormat, PerSnapshot<string>>();

/** The listed tools in a model API's shape; for Anthropic, a role in search mode also sends the rest, marked defer_loading. */
function exportedTools(access: Access, format: ToolFormat) {
  const listed = listedTools(access).map(({ definition, policy }) => exportTool(format, definition, policy));
  if (format !== "anthropic") return listed;
  return [...listed, ...deferredTools(access).map(({ definition, policy }) => ({ ...exportTool(format, definition, policy), defer_loading: true }))];
}

/**
 * The visible tools as JSON in a model API's own shape (OpenAI's by default), built once per catalog snapshot,
 * access key and format: agents ask for it on every turn.
 */
export function visibleToolsJson(access: Access, format: ToolFormat = "openai"): string {
  if (format === "openai") return perAccess(serialised, access, () => JSON.stringify(visibleTools(access)));
  const cache = exported.get(format) ?? new WeakMap();
  exported.set(format, cache);
  return perAccess(cache, access, () => JSON.stringify(exportedTools(access, format)));
}

/** What the tools in an agent's list cost in its context, as it receives them; counted once per snapshot and access key. */
export const visibleTokens = (access: Access, count: TokenCounter): number =>
  perAccess(tokens, access, () => totalTokens(count, listedTools(access).map(({ definition }) => definition)));

/** A tool an agent may call, with the layer it comes from and the tools of its name it hides in wider layers. */
export type LayeredTool = { name: string; group: string; scope: GroupScope; shadows: Array<{ group: string; scope: GroupScope }> };

/**
 * Every tool the agent may call (as allowedTools) with the group and scope it comes from, and what it shadows: the
 * tools of the same name in wider scopes that reach the agent, in groups it may use, which it would get otherwise.
 */
export const layeredTools = (access: Access): LayeredTool[] =>
  allowedTools(access).map(({ group, definition }) => {
    const name = definition.function.name;
    const scope = scopeOfGroup(group);
    const wider = access.scopes.slice(access.scopes.indexOf(scope) + 1);
    const shadows = wider.flatMap((widerScope) => {
      const found = access.manager.toolIn(widerScope, name);
      return found && includesGroup(access.groups, found.group.id) ? [{ group: found.group.id, scope: widerScope }] : [];
    });
    return { name, group: group.id, scope, shadows };
  });
