import type { CatalogEffect, CatalogItem } from "../dynamo/catalog";
import type { PolicyOverride } from "../policy/schema";
import type { StoredPolicy } from "../policy/schema";
import type { ToolGroupManager } from "./manager";

export type CatalogChange<T> = { items: CatalogItem[]; result: T } | { items: null; result: T };

/**
 * The catalog at a version: every group, or (`partial`) only the groups one role uses, with every policy override. A
 * partial snapshot cannot tell a tool of another group from one that does not exist.
 */
export type CatalogSnapshot = {
  version: number;
  manager: ToolGroupManager;
  overrides: ReadonlyMap<string, PolicyOverride>;
  /** The Cedar policies about calls; the catalog's version is their revision. */
  policies: ReadonlyMap<string, StoredPolicy>;
  partial?: true;
};

export type Decide<T> = (manager: ToolGroupManager, snapshot: CatalogSnapshot) => CatalogChange<T>;

/**
 * The catalog after some writes: what loading it from the table at the given version would give, or undefined
 * when the writes do not apply cleanly (then the catalog must be loaded again). One transaction touches an item
 * once, so removals, then additions, give the same result as DynamoDB applying them together.
 */
export function evolve(snapshot: CatalogSnapshot, effects: readonly CatalogEffect[], version = snapshot.version): CatalogSnapshot | undefined {
  const manager = snapshot.manager.clone();
  const overrides = new Map(snapshot.overrides);
  const policies = new Map(snapshot.policies);
  for (const effect of effects) if (effect.kind === "delete_group") manager.unregisterGroup(effect.groupId, { allowReserved: true });
  for (const effect of effects) {
    if (effect.kind === "put_group") {
      manager.unregisterGroup(effect.group.id, { allowReserved: true });
      if (!manager.registerGroup(effect.group).ok) return undefined;
    } else if (effect.kind === "put_override") overrides.set(effect.toolName, effect.override);
    else if (effect.kind === "put_policy") policies.set(effect.policy.id, effect.policy);
    else if (effect.kind === "delete_policy") policies.delete(effect.id);
  }
  return { version, manager, overrides, policies };
}

/** What the catalog writer needs of the per-process catalog cache. */
export interface CatalogCache {
  snapshot(): Promise<CatalogSnapshot>;
  /** The snapshot this process's own write moved the catalog to. */
  wrote(snapshot: CatalogSnapshot): void;
  invalidate(): void;
}
