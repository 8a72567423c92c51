import { AGAIN, untilSettled } from "../contention";
import type { Db } from "../dynamo/client";
import { readCatalogItems, readCatalogVersion, writeCatalog } from "../dynamo/catalog";
import type { PolicyOverride } from "../policy/index";
import type { TransactItem } from "../dynamo/catalog";
import { RESERVED_GROUP_IDS } from "./builtin";
import { ToolGroupManager } from "./manager";

export type CatalogChange<T> = { items: TransactItem[]; result: T } | { items: null; result: T };

export type CatalogSnapshot = { version: number; manager: ToolGroupManager; overrides: ReadonlyMap<string, PolicyOverride> };

/**
 * The per-process catalog cache. A warm read costs one GetItem of the version item;
 * the groups are queried again only when another writer moved the version on.
 */
export class Catalog {
  private cached: CatalogSnapshot | undefined;
  private loading: Promise<CatalogSnapshot> | undefined;

  constructor(private readonly db: Db) {}

  async current(): Promise<ToolGroupManager> {
    return (await this.snapshot()).manager;
  }

  async snapshot(): Promise<CatalogSnapshot> {
    return this.at(await readCatalogVersion(this.db));
  }

  /** The cached snapshot without any read; undefined until something loaded it. */
  peek(): CatalogSnapshot | undefined {
    return this.cached;
  }

  /** The catalog as of a version the caller has just read (e.g. in a batch with other items). */
  async at(version: number): Promise<CatalogSnapshot> {
    if (this.cached && this.cached.version >= version) return this.cached;
    this.loading ??= this.load(version).finally(() => (this.loading = undefined));
    const loaded = await this.loading;
    return loaded.version >= version ? loaded : this.at(version);
  }

  /**
   * Applies a change computed against a fresh catalog, deciding again whenever another writer got there first,
   * until the contention deadline (then 503 busy). `decide` returns the transaction items to write (null to write
   * nothing) and the result to hand back. When one of its own items fails its condition, the WriteConflictError
   * (reasons positioned as `items`) is thrown for the caller to interpret.
   */
  change<T>(decide: (manager: ToolGroupManager, snapshot: CatalogSnapshot) => CatalogChange<T>): Promise<T> {
    return untilSettled(this.db.contentionDeadlineMs, async () => {
      const snapshot = await this.snapshot();
      const decision = decide(snapshot.manager, snapshot);
      if (decision.items === null) return decision.result;
      const written = await writeCatalog(this.db, snapshot.version, decision.items);
      this.invalidate();
      if (written.kind === "ok") return decision.result;
      if (written.kind === "refused") throw written.error;
      return AGAIN;
    });
  }

  invalidate() {
    this.cached = undefined;
  }

  private async load(atLeast: number) {
    // Read the version before the groups: anything committed later carries a higher version and forces a reload.
    const version = Math.max(atLeast, await readCatalogVersion(this.db));
    const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
    const { groups, overrides } = await readCatalogItems(this.db);
    for (const group of groups) manager.registerGroup(group);
    const loaded: CatalogSnapshot = { version, manager, overrides };
    if (!this.cached || this.cached.version <= version) this.cached = loaded;
    return loaded;
  }
}
