import { commonError } from "../error";
import { AGAIN, uncontended, untilSettled } from "../contention";
import { KeyedQueue } from "../queue";
import type { Db } from "../dynamo/client";
import { roleChanged } from "../events/index";
import { noEvents } from "../events/publisher";
import type { EventPublisher } from "../events/publisher";
import { deleteRole, getRole, getRoleIdByName, insertRole, listRoles, replaceRole } from "../dynamo/roles";
import type { Catalog } from "../group/catalog";
import type { ToolGroupManager } from "../group/manager";
import { createId } from "../id";
import { SYSTEM } from "../scope/schema";
import { parseOr } from "../validation";
import type { CatalogSnapshot } from "../group/snapshot";
import { effectivePolicy, permissionProblem } from "../policy/rules";
import { metaGroup } from "../builtin/tool-search";
import { totalTokens } from "../tool/tokens";
import type { TokenCounter } from "../tool/tokens";
import { roleError } from "./errors";
import { ROOT_ROLE_ID, ROOT_TOOL_GROUPS, Role, RoleInput, RolePatch, usesAllGroups } from "./schema";

export { groupsToLoad, MAX_PINNED_TOOLS, ROOT_ROLE_ID, ROOT_TOOL_GROUPS, Role, RoleInput, RolePatch, ToolLoading, usesAllGroups } from "./schema";
export { ROLE_ERRORS, roleError } from "./errors";

export type RoleView = Role & { effectiveToolGroups: string[] };

/**
 * The groups a role picks: root is fixed, none named means every group everyone has (a department's or an agent's own
 * groups reach their agents beside these), unregistered ones drop out.
 */
export function effectiveToolGroups(role: Pick<Role, "id" | "toolGroups">, manager: ToolGroupManager): string[] {
  if (role.id === ROOT_ROLE_ID) return [...ROOT_TOOL_GROUPS];
  if (usesAllGroups(role)) return manager.getAllGroupIds(SYSTEM);
  return (role.toolGroups ?? []).filter((groupId) => manager.getGroup(groupId) !== undefined);
}

export const view = (role: Role, manager: ToolGroupManager): RoleView => ({
  ...role,
  effectiveToolGroups: effectiveToolGroups(role, manager),
});

const nameTaken = (name: string) =>
  roleError("role_name_taken", `A role named "${name}" already exists; role names are unique (ignoring case).`, { name });

const roleNotFound = (what: string) => roleError("role_not_found", `There is no role ${what}.`);

function checkGroupsExist(toolGroups: string[] | null | undefined, manager: ToolGroupManager) {
  const unknown = (toolGroups ?? []).filter((groupId) => manager.getGroup(groupId) === undefined);
  if (unknown.length)
    throw roleError(
      "unknown_tool_group",
      `These tool groups are not registered: ${unknown.join(", ")}. Use GET /groups to see the available ones.`,
      { unknownToolGroups: unknown },
    );
}

/** Pinned tools must be tools of the role's groups: a pin is a promise that its agents always see the tool. */
function checkPinnedTools(role: Pick<Role, "id" | "toolGroups" | "pinnedTools">, manager: ToolGroupManager) {
  const groups = new Set(effectiveToolGroups(role, manager));
  const outside = role.pinnedTools.filter((name) => {
    const owner = manager.getToolGroup(name);
    return owner === null || !groups.has(owner);
  });
  if (outside.length)
    throw roleError(
      "invalid_pinned_tools",
      `These pinned tools are not tools of the role's groups: ${outside.join(", ")}. Pin only tools the role's agents may call (GET /tools lists every tool with its group).`,
      { pinnedTools: outside },
    );
}

export type RoleOutcome = { role: RoleView; notice?: "default_all_tool_groups" };

/** Why a role that names no groups matters: it gets every group, including ones registered later. */
export const ALL_GROUPS_MESSAGE = "The role names no tool groups, so its agents get every tool group, including ones registered later.";

const allGroupsNotice = (role: Role) => (usesAllGroups(role) ? { notice: "default_all_tool_groups" as const } : {});

export async function create(db: Db, catalog: Catalog, parsed: RoleInput, createdBy: string, now: string, events: EventPublisher = noEvents): Promise<RoleOutcome> {
  const manager = await catalog.current();
  checkGroupsExist(parsed.toolGroups, manager);
  const role: Role = {
    id: createId("rol"),
    name: parsed.name,
    rolePrompt: parsed.rolePrompt,
    toolGroups: parsed.toolGroups ?? null,
    createdBy,
    createdAt: now,
    updatedAt: now,
    status: "active",
    llmServiceId: parsed.llmServiceId ?? null,
    toolLoading: parsed.toolLoading ?? "all",
    pinnedTools: parsed.pinnedTools ?? [],
    workspaceRoot: parsed.workspaceRoot ?? null,
    questions: parsed.questions ?? "user",
    version: 1,
  };
  checkPinnedTools(role, manager);
  if ((await uncontended(db.contentionDeadlineMs, () => insertRole(db, role))) === "name_taken") throw nameTaken(role.name);
  await events.publish(roleChanged(role, "created", now));
  return { role: view(role, manager), ...allGroupsNotice(role) };
}

export async function get(db: Db, id: string): Promise<Role> {
  const role = await getRole(db, id);
  if (!role) throw roleNotFound(`with id "${id}"`);
  return role;
}

export async function getByName(db: Db, name: string): Promise<Role> {
  const id = await getRoleIdByName(db, name);
  const role = id === undefined ? undefined : await getRole(db, id);
  if (!role) throw roleNotFound(`named "${name}"`);
  return role;
}

export const list = (db: Db) => listRoles(db);

export function parseIfMatch(header: string | undefined, of = "role"): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
  if (!/^\d+$/.test(value))
    throw commonError("invalid_if_match", `If-Match must be the ${of}'s version number (e.g. "3"); got ${JSON.stringify(header)}.`);
  return Number(value);
}

const versionConflict = (expected: number, current: number) =>
  commonError(
    "version_conflict",
    `The role was changed by someone else (you had version ${expected}, it is now at version ${current}). Reload it and apply your change again.`,
    { currentVersion: current },
  );

/** A partial update. With a version (If-Match or body) a stale role is a 412; without one, a lost race is tried again. */
export type RoleUpdate = { id: string; patch: RolePatch; ifMatch: number | undefined; now: string };

/** Updates of one role made in this process wait for each other instead of racing. */
const updates = new KeyedQueue();

export async function update(db: Db, catalog: Catalog, request: RoleUpdate, events: EventPublisher = noEvents): Promise<RoleOutcome> {
  const outcome = await updates.run(request.id, () => updateRole(db, catalog, request));
  await events.publish(roleChanged(outcome.role, "updated", request.now));
  return outcome;
}

async function updateRole(db: Db, catalog: Catalog, { id, patch, ifMatch, now }: RoleUpdate): Promise<RoleOutcome> {
  if (ifMatch !== undefined && patch.version !== undefined && ifMatch !== patch.version)
    throw roleError("invalid_role", `If-Match (${ifMatch}) and the body's version (${patch.version}) disagree.`);
  if (id === ROOT_ROLE_ID && patch.toolGroups !== undefined && !isRootGroups(patch.toolGroups))
    throw roleError("root_role_fixed", `The root role's tool groups are fixed to ${ROOT_TOOL_GROUPS.join(", ")}.`);
  const expected = ifMatch ?? patch.version;
  const manager = await catalog.current();
  if (patch.toolGroups !== undefined) checkGroupsExist(patch.toolGroups, manager);
  let previous = await get(db, id);
  return untilSettled(db.contentionDeadlineMs, async () => {
    if (expected !== undefined && expected !== previous.version) throw versionConflict(expected, previous.version);
    const next: Role = {
      ...previous,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.rolePrompt !== undefined ? { rolePrompt: patch.rolePrompt } : {}),
      ...(patch.toolGroups !== undefined ? { toolGroups: patch.toolGroups } : {}),
      ...(patch.llmServiceId !== undefined ? { llmServiceId: patch.llmServiceId } : {}),
      ...(patch.toolLoading !== undefined ? { toolLoading: patch.toolLoading } : {}),
      ...(patch.pinnedTools !== undefined ? { pinnedTools: patch.pinnedTools } : {}),
      ...(patch.workspaceRoot !== undefined ? { workspaceRoot: patch.workspaceRoot } : {}),
      ...(patch.questions !== undefined ? { questions: patch.questions } : {}),
      updatedAt: now,
      version: previous.version + 1,
    };
    if (patch.pinnedTools !== undefined) checkPinnedTools(next, manager);
    const replaced = await replaceRole(db, previous, next);
    if (replaced.kind === "ok") return { role: view(next, manager), ...(patch.toolGroups !== undefined ? allGroupsNotice(next) : {}) };
    if (replaced.kind === "name_taken") throw nameTaken(next.name);
    if (replaced.kind === "stale") {
      if (!replaced.current) throw roleNotFound(`with id "${id}"`);
      previous = replaced.current;
    }
    return AGAIN;
  });
}

const roleInUse = (id: string, activeAgents: number) =>
  roleError(
    "role_in_use",
    `The role "${id}" still has ${activeAgents} active agent${activeAgents === 1 ? "" : "s"} bound to it. Terminate them (DELETE /agents/:id) before deleting the role.`,
    { activeAgents },
  );

const indexesPending = () =>
  roleError(
    "indexes_pending",
    "toolgate has not yet indexed the agents stored before this version, so it cannot tell whether the role is in use. The scheduled cleanup does this within minutes; try again then.",
  );

/** Deletes a role no active agent is bound to; the root role stays. */
export function remove(db: Db, id: string, events: EventPublisher = noEvents): Promise<void> {
  if (id === ROOT_ROLE_ID) throw roleError("root_role_fixed", "The root role cannot be deleted.");
  return updates.run(id, async () => {
    let current = await getRole(db, id);
    return untilSettled(db.contentionDeadlineMs, async () => {
      if (!current) throw roleNotFound(`with id "${id}"`);
      const deleted = await deleteRole(db, current);
      if (deleted.kind === "ok") return void (await events.publish(roleChanged(current, "deleted", new Date().toISOString())));
      if (deleted.kind === "in_use") throw roleInUse(id, deleted.activeAgents);
      if (deleted.kind === "indexes_pending") throw indexesPending();
      if (deleted.kind === "stale") current = deleted.current;
      return AGAIN;
    });
  });
}

const isRootGroups = (groups: string[] | null) =>
  groups !== null && groups.length === ROOT_TOOL_GROUPS.length && groups.every((g, i) => g === ROOT_TOOL_GROUPS[i]);

export async function ensureRoot(db: Db, now: string): Promise<void> {
  if (await getRole(db, ROOT_ROLE_ID)) return;
  const root: Role = {
    id: ROOT_ROLE_ID,
    name: "root",
    rolePrompt:
      "You are the root agent. You organise work: find or create roles (choosing each role's toolGroups deliberately) and spawn agents with tasks.",
    toolGroups: [...ROOT_TOOL_GROUPS],
    createdBy: "system",
    createdAt: now,
    updatedAt: now,
    status: "active",
    llmServiceId: null,
    toolLoading: "all",
    pinnedTools: [],
    workspaceRoot: null,
    questions: "user",
    version: 1,
  };
  await uncontended(db.contentionDeadlineMs, () => insertRole(db, root));
}

const ANY_AGENT = { department: null, level: null };

/** What a role's tools cost in each agent's context: as it loads them now, and in either mode. */
export type RoleTokens = {
  toolTokens: number;
  /** all: every tool listed; search: the pinned tools and searchTools (search_tools and call_tool, the fixed part). */
  loadingTokens: { all: number; search: number; searchTools: number };
};

/**
 * What a role's tools cost in an agent's context: every enabled tool of its groups that its policy lets the role use.
 * Restrictions to departments or levels depend on the agent, so an agent may see fewer (GET /agents/:id/tools counts exactly).
 */
export function roleTokens(role: Role, snapshot: Pick<CatalogSnapshot, "manager" | "overrides">, count: TokenCounter): RoleTokens {
  const usable = effectiveToolGroups(role, snapshot.manager)
    .flatMap((groupId) => snapshot.manager.getGroup(groupId)?.tools ?? [])
    .filter((definition) => {
      const policy = effectivePolicy(definition, snapshot.overrides.get(definition.function.name));
      return !policy.disabled && permissionProblem({ ...policy, allowedDepartments: undefined, minLevel: undefined }, role, ANY_AGENT) === null;
    });
  const pinned = new Set(role.pinnedTools);
  const searchTools = totalTokens(count, metaGroup().tools);
  const all = totalTokens(count, usable);
  const search = searchTools + totalTokens(count, usable.filter((definition) => pinned.has(definition.function.name)));
  return { toolTokens: role.toolLoading === "search" ? search : all, loadingTokens: { all, search, searchTools } };
}
