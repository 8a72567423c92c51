import type { Db } from "../dynamo/client";
import { readCedarPolicies, readGroups, readOverrides, readScopedGroups } from "../dynamo/catalog";
import type { GroupScope } from "../scope/schema";
import type { PolicyOverride } from "../policy/schema";
import type { StoredPolicy } from "../policy/schema";
import { META_GROUP_ID } from "../builtin/tool-search";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { ToolGroupManager } from "./manager";
import type { Group } from "./schema";
import type { CatalogSnapshot } from "./snapshot";

/** Snapshots kept: one per role's group set and department and agent with groups of its own. */
const MAX_GROUP_SETS = 2048;

type Read<T> = { version: number; value: T };

/**
 * The catalog as one agent needs it: only the groups its role names, its department's and its own (and every policy
 * override), read by id and by scope, and kept until the catalog's version moves past the one they were read at. A
 * cold process serving an agent whose role names 3 groups reads those 3 and its scopes' groups, not the whole catalog.
 */
export class PartialCatalogs {
  private readonly groups = new Map<string, Read<Group | undefined>>();
  private readonly scoped = new Map<GroupScope, Read<Group[]>>();
  private overrides: Read<{ overrides: ReadonlyMap<string, PolicyOverride>; policies: ReadonlyMap<string, StoredPolicy> }> | undefined;
  private readonly snapshots = new Map<string, CatalogSnapshot>();
  private readonly loading = new Map<string, Promise<CatalogSnapshot>>();

  constructor(private readonly db: Db) {}

  /** The newest snapshot built for these groups and scopes, without any read; undefined until one was. */
  peek(groupIds: readonly string[], scopes: readonly GroupScope[]): CatalogSnapshot | undefined {
    return this.snapshots.get(keyOf(groupIds, scopes));
  }

  /** The snapshot of these groups and of these scopes' groups at `version` (one the caller has just read) or later. */
  async at(groupIds: readonly string[], scopes: readonly GroupScope[], version: number): Promise<CatalogSnapshot> {
    const key = keyOf(groupIds, scopes);
    const known = this.snapshots.get(key);
    if (known && known.version >= version) return known;
    const inFlight = this.loading.get(key);
    if (inFlight) {
      const loaded = await inFlight;
      if (loaded.version >= version) return loaded;
    }
    const load = this.load(key, groupIds, scopes, version).finally(() => this.loading.delete(key));
    this.loading.set(key, load);
    return load;
  }

  clear() {
    this.groups.clear();
    this.scoped.clear();
    this.snapshots.clear();
    this.overrides = undefined;
  }

  // What is read after `version` was read is at least that new: anything committed later moves the version on again.
  private async load(key: string, groupIds: readonly string[], scopes: readonly GroupScope[], version: number): Promise<CatalogSnapshot> {
    const stale = groupIds.filter((id) => (this.groups.get(id)?.version ?? -1) < version);
    const staleScopes = scopes.filter((scope) => (this.scoped.get(scope)?.version ?? -1) < version);
    const [read, { overrides, policies }, scopedRead] = await Promise.all([
      stale.length ? readGroups(this.db, stale) : new Map<string, Group>(),
      this.overrides && this.overrides.version >= version ? this.overrides.value : readBesideGroups(this.db),
      Promise.all(staleScopes.map((scope) => readScopedGroups(this.db, scope))),
    ]);
    for (const id of stale) this.groups.set(id, { version, value: read.get(id) });
    staleScopes.forEach((scope, n) => this.scoped.set(scope, { version, value: scopedRead[n]! }));
    if (!this.overrides || this.overrides.version < version) this.overrides = { version, value: { overrides, policies } };
    const manager = new ToolGroupManager([...RESERVED_GROUP_IDS, META_GROUP_ID]);
    for (const id of groupIds) {
      const group = this.groups.get(id)?.value;
      if (group) manager.registerGroup(group);
    }
    const byId = new Set(groupIds);
    for (const scope of scopes) for (const group of this.scoped.get(scope)?.value ?? []) if (!byId.has(group.id)) manager.registerGroup(group);
    const snapshot: CatalogSnapshot = { version, manager, overrides, policies, partial: true };
    const known = this.snapshots.get(key);
    if (!known || known.version <= version) {
      if (this.snapshots.size >= MAX_GROUP_SETS) this.snapshots.clear();
      this.snapshots.set(key, snapshot);
    }
    return snapshot;
  }
}

/** What every view needs beside its groups: the policy overrides and the Cedar policies. */
async function readBesideGroups(db: Db) {
  const [overrides, policies] = await Promise.all([readOverrides(db), readCedarPolicies(db)]);
  return { overrides, policies };
}

const keyOf = (groupIds: readonly string[], scopes: readonly GroupScope[]) => `${[...new Set(groupIds)].sort().join("\u0000")}\u0001${[...scopes].sort().join("\u0000")}`;
