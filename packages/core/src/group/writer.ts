import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs } from "../contention";
import { busy, ConditionFailedError, StoreUnavailableError } from "../error";
import type { Db } from "../dynamo/client";
import { itemBytes, itemKey, MAX_CATALOG_BYTES, MAX_CATALOG_ITEMS, writeCatalog } from "../dynamo/catalog";
import type { CatalogEffect, CatalogItem } from "../dynamo/catalog";
import { groupChanged } from "../events/index";
import type { ToolgateEvent } from "../events/index";
import type { EventPublisher } from "../events/publisher";
import { evolve } from "./snapshot";
import { invalidationEvents } from "../policy/invalidated";
import type { CatalogCache, CatalogSnapshot, Decide } from "./snapshot";

type Pending = {
  decide: Decide<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  deadline: number;
  /** Lost a race at least once: only then can its deadline end it. */
  tried?: boolean;
  /** Written in a transaction of its own, after a batch it was part of failed for a reason other than a lost race. */
  alone?: boolean;
};

type Member = { pending: Pending; items: CatalogItem[]; result: unknown };

type Round = "committed" | "lost" | "again";

const effectsOf = (members: Member[]) => members.flatMap((member) => member.items.flatMap((item) => (item.effect ? [item.effect] : [])));

/** group.changed for each group a committed transaction registered, replaced or removed; built-in groups are not announced. */
export function groupEvents(before: CatalogSnapshot, effects: readonly CatalogEffect[], catalogVersion: number): ToolgateEvent[] {
  return effects.flatMap((effect): ToolgateEvent[] => {
    if (effect.kind === "put_group") {
      const { group } = effect;
      if (group.source === "builtin") return [];
      const change = before.manager.getGroup(group.id) ? "updated" : "registered";
      const tools = group.tools.map((tool) => tool.function.name);
      return [groupChanged({ groupId: group.id, change, source: group.source, ...(group.module ? { module: group.module } : {}), tools, catalogVersion })];
    }
    if (effect.kind === "delete_group") {
      const group = before.manager.getGroup(effect.groupId);
      if (group?.source === "builtin") return [];
      const origin = group ? { source: group.source, ...(group.module ? { module: group.module } : {}) } : {};
      return [groupChanged({ groupId: effect.groupId, change: "unregistered", ...origin, tools: [], catalogVersion })];
    }
    return [];
  });
}
/**
 * Writes this process's catalog changes in as few transactions as it can: changes waiting together are decided
 * one after another on the same snapshot (each sees the ones before it) and committed as one transaction behind
 * the version check. A lost race decides them all again on the newer catalog, after a jittered backoff, until each
 * change's deadline (then 503 busy). A decision made on top of changes not yet committed only counts once they are.
 */
export class CatalogWriter {
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly db: Db,
    private readonly catalog: CatalogCache,
    private readonly events: EventPublisher,
  ) {}

  submit<T>(decide: Decide<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ decide, resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + this.db.contentionDeadlineMs });
      if (!this.running) void this.run();
    });
  }

  private async run() {
    this.running = true;
    try {
      for (let lost = 0; this.queue.length; ) {
        const round = await this.round().catch((error: unknown) => {
          for (const pending of this.queue.splice(0)) pending.reject(error);
          return "committed" as const;
        });
        if (round !== "lost") {
          lost = 0;
          continue;
        }
        const delay = backoffMs(++lost);
        this.expire(Date.now() + delay);
        await sleep(delay);
      }
    } finally {
      this.running = false;
    }
  }

  /** Changes that would still be waiting past their deadline get 503 busy now (every change gets at least one attempt). */
  private expire(at: number) {
    for (let index = this.queue.length - 1; index >= 0; index--)
      if (this.queue[index]!.tried && this.queue[index]!.deadline < at) this.queue.splice(index, 1)[0]!.reject(busy());
  }

  private async round(): Promise<Round> {
    const snapshot = await this.catalog.snapshot();
    const { members, deferred } = this.batch(snapshot);
    this.queue.unshift(...deferred);
    if (!members.length) return "again";
    let written;
    try {
      written = await writeCatalog(this.db, snapshot.version, members.flatMap((member) => member.items));
    } catch (error) {
      const storeDown = error instanceof StoreUnavailableError;
      if (members.length === 1 || storeDown) for (const member of members) member.pending.reject(error);
      else this.queue.unshift(...members.map((member) => ({ ...member.pending, alone: true })));
      return "again";
    }
    if (written.kind === "ok") {
      const next = evolve(snapshot, effectsOf(members), written.version);
      if (next) this.catalog.wrote(next);
      else this.catalog.invalidate();
      // Each change is answered once its events are out (publish never rejects); the next round does not wait for them.
      const effects = effectsOf(members);
      const published = this.events
        .publish(...groupEvents(snapshot, effects, written.version))
        .then(async () => this.events.publish(...(next ? await invalidationEvents(snapshot, next, effects).catch(() => []) : [])));
      for (const member of members) void published.then(() => member.pending.resolve(member.result));
      return "committed";
    }
    if (written.kind === "refused") return this.refused(members, written.failed);
    if (written.kind === "stale") this.catalog.invalidate();
    this.queue.unshift(...members.map((member) => ({ ...member.pending, tried: true })));
    return "lost";
  }

  /** Decides waiting changes in order on one working snapshot, up to a transaction's limits. */
  private batch(snapshot: CatalogSnapshot) {
    const members: Member[] = [];
    const deferred: Pending[] = [];
    const keys = new Set<string>();
    let working: CatalogSnapshot | undefined = snapshot;
    let count = 0;
    let bytes = 0;
    for (const pending of this.queue.splice(0)) {
      const onTopOfOthers = members.length > 0;
      if (onTopOfOthers && (!working || pending.alone || members[0]!.pending.alone)) {
        deferred.push(pending);
        continue;
      }
      let decision;
      try {
        decision = pending.decide(working!.manager, working!);
      } catch (error) {
        if (onTopOfOthers) deferred.push(pending);
        else pending.reject(error);
        continue;
      }
      if (decision.items === null) {
        if (onTopOfOthers) deferred.push(pending);
        else pending.resolve(decision.result);
        continue;
      }
      const itemKeys = decision.items.map(itemKey);
      const size = decision.items.reduce((total, item) => total + itemBytes(item), 0);
      const fits = count + decision.items.length <= MAX_CATALOG_ITEMS && bytes + size <= MAX_CATALOG_BYTES && itemKeys.every((key) => !keys.has(key));
      if (onTopOfOthers && !fits) {
        deferred.push(pending);
        continue;
      }
      members.push({ pending, items: decision.items, result: decision.result });
      for (const key of itemKeys) keys.add(key);
      count += decision.items.length;
      bytes += size;
      working = evolve(working!, effectsOf(members.slice(-1)));
    }
    return { members, deferred };
  }

  /** Some items failed their own condition: their changes get a ConditionFailedError, the others are decided again. */
  private refused(members: Member[], failed: boolean[]): Round {
    const again: Pending[] = [];
    let offset = 0;
    for (const member of members) {
      const own = failed.slice(offset, offset + member.items.length);
      offset += member.items.length;
      if (own.some(Boolean)) member.pending.reject(new ConditionFailedError());
      else again.push(member.pending);
    }
    this.queue.unshift(...again);
    return "again";
  }
}
