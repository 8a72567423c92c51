import type { CatalogEffect } from "../dynamo/catalog";
import { policyInvalidated } from "../events/index";
import type { ToolgateEvent } from "../events/index";
import type { CatalogSnapshot } from "../group/snapshot";
import { validateAgainstCatalog } from "./cedar/validate";
import type { StoredPolicy } from "./schema";

function changedGroups(effects: readonly CatalogEffect[]): Set<string> {
  return new Set(effects.flatMap((effect) => (effect.kind === "put_group" ? [effect.group.id] : effect.kind === "delete_group" ? [effect.groupId] : [])));
}

const toolsOf = (snapshot: CatalogSnapshot, groups: Iterable<string>) =>
  [...groups].flatMap((id) => snapshot.manager.getGroup(id)?.tools.map((tool) => tool.function.name) ?? []);

const touches = (policy: StoredPolicy, groups: ReadonlySet<string>, tools: ReadonlySet<string>) =>
  policy.targets === "all" || policy.targets.groups.some((group) => groups.has(group)) || policy.targets.tools.some((tool) => tools.has(tool));

/**
 * policy.invalidated for each policy a committed catalog change made invalid (valid before, not after): it still fails
 * closed, and GET /policies shows its problems. Only policies naming a changed group or one of its tools are checked.
 */
export async function invalidationEvents(before: CatalogSnapshot, after: CatalogSnapshot, effects: readonly CatalogEffect[]): Promise<ToolgateEvent[]> {
  const groups = changedGroups(effects);
  if (!groups.size || !after.policies.size) return [];
  const tools = new Set([...toolsOf(before, groups), ...toolsOf(after, groups)]);
  const candidates = [...after.policies.values()].filter((policy) => touches(policy, groups, tools));
  if (!candidates.length) return [];
  const [was, is] = await Promise.all([validateAgainstCatalog(before.manager, candidates), validateAgainstCatalog(after.manager, candidates)]);
  return candidates.flatMap((policy) => {
    const problems = is.get(policy.id) ?? [];
    if (!problems.length || was.get(policy.id)?.length) return [];
    return [policyInvalidated({ policyId: policy.id, problems: problems.map((problem) => problem.message), revision: after.version })];
  });
}
