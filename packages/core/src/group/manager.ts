import type { ToolDefinition } from "../tool/schema";
import { narrowness } from "../scope/schema";
import type { GroupScope } from "../scope/schema";
import { scopeOfGroup } from "./schema";
import type { Group, GroupSummary } from "./schema";
import { summarise } from "./views";

export type RegisterResult =
  | { ok: true; replaced: boolean; warning?: "duplicate_group_id" }
  | { ok: false; error: "reserved_group_id" | "tool_name_conflict"; toolName?: string; owner?: string };

export type UnregisterResult = { ok: true } | { ok: false; error: "group_not_found" | "reserved_group_id" };

/** A tool as found: its group, its definition, and the scope it was found in. */
export type FoundTool = { group: Group; definition: ToolDefinition; scope: GroupScope };

const ownerKey = (scope: GroupScope, toolName: string) => `${scope}\u0000${toolName.toLowerCase()}`;

/**
 * The tool catalog: groups by id and, within each scope, each tool name's owning group (a name belongs to one group
 * per scope; a narrower scope may bring a tool of a name a wider one has). Pure and in memory; the DynamoDB-backed
 * catalog loads one of these and writes through it.
 */
export class ToolGroupManager {
  private readonly groups = new Map<string, Group>();
  private readonly owners = new Map<string, string>();
  /** The scopes each lowercased tool name has an owner in. */
  private readonly scopesOfName = new Map<string, Set<GroupScope>>();
  private readonly idsByScope = new Map<GroupScope, Set<string>>();
  private readonly reservedIds: ReadonlySet<string>;

  constructor(reservedIds: Iterable<string> = []) {
    this.reservedIds = new Set(reservedIds);
  }

  /** An independent copy: registering into it leaves this one as it was. */
  clone(): ToolGroupManager {
    const copy = new ToolGroupManager(this.reservedIds);
    for (const group of this.groups.values()) copy.add(group);
    return copy;
  }

  isReserved(groupId: string) {
    return this.reservedIds.has(groupId);
  }

  /** Checks a registration against the catalog without changing it; `replacing` names a group it takes the place of. */
  check(group: Group, replacing?: string): RegisterResult {
    if (this.isReserved(group.id) && group.source !== "builtin") return { ok: false, error: "reserved_group_id" };
    const scope = scopeOfGroup(group);
    for (const tool of group.tools) {
      const owner = this.owners.get(ownerKey(scope, tool.function.name));
      if (owner !== undefined && owner !== group.id && owner !== replacing)
        return { ok: false, error: "tool_name_conflict", toolName: tool.function.name, owner };
    }
    const replaced = this.groups.has(group.id);
    return replaced ? { ok: true, replaced, warning: "duplicate_group_id" } : { ok: true, replaced };
  }

  registerGroup(group: Group): RegisterResult {
    const result = this.check(group);
    if (!result.ok) return result;
    this.remove(group.id);
    this.add(group);
    return result;
  }

  unregisterGroup(groupId: string, options: { allowReserved?: boolean } = {}): UnregisterResult {
    if (this.isReserved(groupId) && !options.allowReserved) return { ok: false, error: "reserved_group_id" };
    if (!this.groups.has(groupId)) return { ok: false, error: "group_not_found" };
    this.remove(groupId);
    return { ok: true };
  }

  getGroup(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  listGroups(): GroupSummary[] {
    return [...this.groups.values()].map(summarise).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The id of the group that owns the tool (exact name) in the widest scope it has one in, or null. */
  getToolGroup(toolName: string): string | null {
    return this.findTool(toolName)?.group.id ?? null;
  }

  /** The tool of this exact name in one scope, if a group of that scope has it. */
  toolIn(scope: GroupScope, toolName: string): FoundTool | undefined {
    const group = this.groups.get(this.owners.get(ownerKey(scope, toolName)) ?? "");
    const definition = group?.tools.find((tool) => tool.function.name === toolName);
    return group && definition ? { group, definition, scope } : undefined;
  }

  /** Every tool of this exact name, narrowest scope first (one per scope). */
  toolsNamed(toolName: string): FoundTool[] {
    const scopes = [...(this.scopesOfName.get(toolName.toLowerCase()) ?? [])].sort((a, b) => narrowness(b) - narrowness(a));
    return scopes.flatMap((scope) => this.toolIn(scope, toolName) ?? []);
  }

  /** The tool of this exact name in the widest scope that has one: everyone's if there is one (what an operator names). */
  findTool(toolName: string): FoundTool | undefined {
    return this.toolsNamed(toolName).at(-1);
  }

  /** Every group's id, or those of one scope, sorted. */
  getAllGroupIds(scope?: GroupScope): string[] {
    return [...(scope === undefined ? this.groups.keys() : (this.idsByScope.get(scope) ?? []))].sort();
  }

  /** Every scope some group has. */
  scopes(): GroupScope[] {
    return [...this.idsByScope.keys()];
  }

  get size() {
    return this.groups.size;
  }

  private add(group: Group) {
    const scope = scopeOfGroup(group);
    this.groups.set(group.id, group);
    let ids = this.idsByScope.get(scope);
    if (!ids) this.idsByScope.set(scope, (ids = new Set()));
    ids.add(group.id);
    for (const tool of group.tools) {
      const name = tool.function.name.toLowerCase();
      this.owners.set(ownerKey(scope, name), group.id);
      let scopes = this.scopesOfName.get(name);
      if (!scopes) this.scopesOfName.set(name, (scopes = new Set()));
      scopes.add(scope);
    }
  }

  private remove(groupId: string) {
    const existing = this.groups.get(groupId);
    if (!existing) return;
    const scope = scopeOfGroup(existing);
    for (const tool of existing.tools) {
      const name = tool.function.name.toLowerCase();
      this.owners.delete(ownerKey(scope, name));
      const scopes = this.scopesOfName.get(name);
      scopes?.delete(scope);
      if (scopes?.size === 0) this.scopesOfName.delete(name);
    }
    this.groups.delete(groupId);
    const ids = this.idsByScope.get(scope);
    ids?.delete(groupId);
    if (ids?.size === 0) this.idsByScope.delete(scope);
  }
}
