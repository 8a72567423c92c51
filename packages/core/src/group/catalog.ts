import type { Db } from "../dynamo/client";
import { noEvents } from "../events/publisher";
import type { EventPublisher } from "../events/publisher";
import { readCatalogItems, readCatalogVersion } from "../dynamo/catalog";
import type { CatalogCache, CatalogSnapshot, Decide } from "./snapshot";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { ToolGroupManager } from "./manager";
import { META_GROUP_ID } from "../builtin/tool-search";
import { PartialCatalogs } from "./partial";
import { CatalogWriter } from "./writer";
import type { GroupScope } from "../scope/schema";

export type { CatalogChange, CatalogSnapshot, Decide } from "./snapshot";

/**
 * The per-process catalog cache. A warm read costs one GetItem of the version item; the groups are
 * queried again only when another process moved the version on (this process's own writes move the cache on).
 */
export class Catalog implements CatalogCache {
  private cached: CatalogSnapshot | undefined;
  private loading: Promise<CatalogSnapshot> | undefined;
  private readonly writer: CatalogWriter;
  private readonly partials: PartialCatalogs;

  constructor(
    private readonly db: Db,
    events: EventPublisher = noEvents,
  ) {
    this.writer = new CatalogWriter(db, this, events);
    this.partials = new PartialCatalogs(db);
  }

  /**
   * The catalog as agents of a role with these groups need it, at `version` (just read by the caller) or later: the
   * whole catalog if this process holds it or the role uses every group, else only those groups.
   */
  forGroups(groupIds: readonly string[] | "all", version: number, scopes: readonly GroupScope[] = []): Promise<CatalogSnapshot> {
    if (groupIds === "all" || (this.cached && this.cached.version >= version)) return this.at(version);
    return this.partials.at(groupIds, scopes, version);
  }

  /** The same, at the catalog's version as read now. */
  async currentForGroups(groupIds: readonly string[] | "all", scopes: readonly GroupScope[] = []): Promise<CatalogSnapshot> {
    return this.forGroups(groupIds, await readCatalogVersion(this.db), scopes);
  }

  /** The newest snapshot this process holds for these groups and scopes, without any read. */
  peekForGroups(groupIds: readonly string[] | "all", scopes: readonly GroupScope[] = []): CatalogSnapshot | undefined {
    const partial = groupIds === "all" ? undefined : this.partials.peek(groupIds, scopes);
    return partial && (!this.cached || this.cached.version < partial.version) ? partial : this.cached;
  }

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
   * Applies a change decided against the current catalog, deciding again whenever another writer got there
   * first, until the contention deadline (then 503 busy). `decide` returns the transaction items to write (null
   * to write nothing) and the result to hand back. When one of its own items fails its condition, a
   * ConditionFailedError is thrown for the caller to interpret.
   */
  change<T>(decide: Decide<T>): Promise<T> {
    return this.writer.submit(decide);
  }

  /** Called by the writer once its transaction committed: the snapshot it wrote on, moved on by its effects. */
  wrote(snapshot: CatalogSnapshot) {
    if (!this.cached || this.cached.version < snapshot.version) this.cached = snapshot;
  }

  invalidate() {
    this.cached = undefined;
    this.partials.clear();
  }

  private async load(atLeast: number) {
    // Read the version before the groups: anything committed later carries a higher version and forces a reload.
    const version = Math.max(atLeast, await readCatalogVersion(this.db));
    const manager = new ToolGroupManager([...RESERVED_GROUP_IDS, META_GROUP_ID]);
    const { groups, overrides, policies } = await readCatalogItems(this.db);
    for (const group of groups) manager.registerGroup(group);
    const loaded: CatalogSnapshot = { version, manager, overrides, policies };
    if (!this.cached || this.cached.version <= version) this.cached = loaded;
    return loaded;
  }
}
