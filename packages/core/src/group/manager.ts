import type { AgentToolDefinition, ToolDefinition } from "../tool/schema";
import { forAgent } from "../tool/schema";
import type { Group, GroupSummary } from "./schema";
import { summarise } from "./views";

export type RegisterResult =
  | { ok: true; replaced: boolean; warning?: "duplicate_group_id" }
  | { ok: false; error: "reserved_group_id" | "tool_name_conflict"; toolName?: string; owner?: string };

export type UnregisterResult = { ok: true } | { ok: false; error: "group_not_found" | "reserved_group_id" };

/**
 * The tool catalog: groups by id and each tool's owning group.
 * Pure and in memory; the DynamoDB-backed catalog loads one of these and writes through it.
 */
export class ToolGroupManager {
  private readonly groups = new Map<string, Group>();
  private readonly toolToGroup = new Map<string, string>();
  private readonly reservedIds: ReadonlySet<string>;

  constructor(reservedIds: Iterable<string> = []) {
    this.reservedIds = new Set(reservedIds);
  }

  /** An independent copy: registering into it leaves this one as it was. */
  clone(): ToolGroupManager {
    const copy = new ToolGroupManager(this.reservedIds);
    for (const [id, group] of this.groups) copy.groups.set(id, group);
    for (const [tool, owner] of this.toolToGroup) copy.toolToGroup.set(tool, owner);
    return copy;
  }

  isReserved(groupId: string) {
    return this.reservedIds.has(groupId);
  }

  /** Checks a registration against the catalog without changing it; `replacing` names a group it takes the place of. */
  check(group: Group, replacing?: string): RegisterResult {
    if (this.isReserved(group.id) && group.source !== "builtin") return { ok: false, error: "reserved_group_id" };
    for (const tool of group.tools) {
      const owner = this.toolToGroup.get(tool.function.name.toLowerCase());
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
    this.groups.set(group.id, group);
    for (const tool of group.tools) this.toolToGroup.set(tool.function.name.toLowerCase(), group.id);
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

  /** The agent-facing definitions of the given groups, merged, each tool once, in group then tool order. */
  getToolDefinitions(groupIds: Iterable<string>): AgentToolDefinition[] {
    const seen = new Set<string>();
    const definitions: AgentToolDefinition[] = [];
    for (const groupId of groupIds) {
      for (const tool of this.groups.get(groupId)?.tools ?? []) {
        if (seen.has(tool.function.name)) continue;
        seen.add(tool.function.name);
        definitions.push(forAgent(tool));
      }
    }
    return definitions;
  }

  listGroups(): GroupSummary[] {
    return [...this.groups.values()].map(summarise).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The id of the group that owns the tool (exact name), or null. */
  getToolGroup(toolName: string): string | null {
    const owner = this.toolToGroup.get(toolName.toLowerCase());
    if (owner === undefined) return null;
    return this.findTool(toolName) ? owner : null;
  }

  findTool(toolName: string): { group: Group; definition: ToolDefinition } | undefined {
    const owner = this.toolToGroup.get(toolName.toLowerCase());
    const group = owner === undefined ? undefined : this.groups.get(owner);
    const definition = group?.tools.find((tool) => tool.function.name === toolName);
    return group && definition ? { group, definition } : undefined;
  }

  isToolInGroups(toolName: string, groupIds: Iterable<string>): boolean {
    const owner = this.getToolGroup(toolName);
    if (owner === null) return false;
    for (const groupId of groupIds) if (groupId === owner) return true;
    return false;
  }

  getAllGroupIds(): string[] {
    return [...this.groups.keys()].sort();
  }

  get size() {
    return this.groups.size;
  }

  private remove(groupId: string) {
    const existing = this.groups.get(groupId);
    if (!existing) return;
    for (const tool of existing.tools) this.toolToGroup.delete(tool.function.name.toLowerCase());
    this.groups.delete(groupId);
  }
}
