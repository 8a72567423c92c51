import type { FoundTool, ToolGroupManager } from "../../group/manager";
import { scopeOfGroup } from "../../group/schema";
import { SYSTEM, narrowness, scopeOf } from "../../scope/schema";
import type { GroupScope, Scope } from "../../scope/schema";
import type { PolicyTargets } from "../schema";
import type { SchemaGroup } from "./schema";

/**
 * The tool of this name in a layer, the catalog as the agents of one group scope see it: the layer's own, else
 * everyone's, else the widest scope's that has one.
 */
const toolInLayer = (manager: ToolGroupManager, layer: GroupScope, name: string): FoundTool | undefined => manager.toolIn(layer, name) ?? manager.findTool(name);

/**
 * Some groups as a layer sees them: each keeps the tools it has there, typed when the group is the layer's own and
 * named only otherwise (an action a policy may name, whose calls are checked in its own layer). Each definition is
 * typed in its own layer alone, everyone's in the system layer, so a problem found in a layer is about its definitions.
 */
export function layerGroups(manager: ToolGroupManager, layer: GroupScope, groupIds: readonly string[]): SchemaGroup[] {
  return groupIds.flatMap((id): SchemaGroup[] => {
    const group = manager.getGroup(id);
    if (!group) return [];
    if (scopeOfGroup(group) === layer) return [group];
    const kept = group.tools.filter((tool) => toolInLayer(manager, layer, tool.function.name)?.group.id === id);
    return [{ id, tools: [], untyped: kept.map((tool) => tool.function.name), ...(group.offers ? { offers: group.offers } : {}) }];
  });
}

/** Whether a policy of this scope can meet a layer's definitions: a department's never meets another department's, an agent's never another agent's. */
export function meets(policyScope: Scope, layer: GroupScope): boolean {
  const kind = scopeOf(layer).kind;
  return kind === "system" || kind !== scopeOf(policyScope).kind || layer === policyScope;
}

const widestFirst = (a: GroupScope, b: GroupScope) => narrowness(a) - narrowness(b) || a.localeCompare(b);

/**
 * The layers a policy is validated in, everyone's first and always (what an operator names, and where a name no
 * layer has is found unknown), then each that defines a tool the policy names (by name, group, or all) and it can meet.
 */
export function layersOf(manager: ToolGroupManager, policy: { scope: Scope; targets: PolicyTargets }, allScopes: () => readonly GroupScope[]): GroupScope[] {
  const layers = new Set<GroupScope>([SYSTEM]);
  if (policy.targets === "all") allScopes().forEach((scope) => layers.add(scope));
  else {
    for (const tool of policy.targets.tools) for (const found of manager.toolsNamed(tool)) layers.add(found.scope);
    for (const id of policy.targets.groups) {
      const group = manager.getGroup(id);
      if (group) layers.add(scopeOfGroup(group));
    }
  }
  return [...layers].filter((layer) => meets(policy.scope, layer)).sort(widestFirst);
}

/** The tools a policy names (by name, group, or all) that a layer defines itself, sorted. */
export function definedIn(manager: ToolGroupManager, layer: GroupScope, targets: PolicyTargets): string[] {
  const own = (id: string) => {
    const group = manager.getGroup(id);
    return group !== undefined && scopeOfGroup(group) === layer;
  };
  const groups = targets === "all" ? manager.getAllGroupIds(layer) : targets.groups.filter(own);
  const names = new Set(targets === "all" ? [] : targets.tools.filter((name) => manager.toolIn(layer, name)));
  for (const id of groups) for (const tool of manager.getGroup(id)?.tools ?? []) names.add(tool.function.name);
  return [...names].sort();
}

/**
 * Every definition of a name a policy of this scope can meet, the one it means first: its own scope's, else the
 * widest (everyone's when there is one). None when no group has the name.
 */
export function definitionsMet(manager: ToolGroupManager, scope: Scope, name: string): FoundTool[] {
  const met = manager.toolsNamed(name).filter((found) => meets(scope, found.scope));
  const meant = met.find((found) => found.scope === scope) ?? met.at(-1) ?? manager.findTool(name);
  return meant ? [meant, ...met.filter((found) => found !== meant)] : [];
}
