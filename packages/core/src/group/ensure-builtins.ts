import { isDeepStrictEqual } from "node:util";
import { putGroupItem } from "../dynamo/catalog";
import type { Db } from "../dynamo/client";
import { builtinGroups, NATIVE_GROUP_IDS } from "./builtin";
import type { Executor } from "../executor/schema";
import type { Catalog } from "./catalog";
import { planRegistration } from "./register";

/** Registers the built-in groups where they are missing or differ from this code's definitions; a no-op otherwise. */
export function ensureBuiltins(db: Db, catalog: Catalog, now: string): Promise<number> {
  return catalog.change((manager) => {
    const stale = builtinGroups().filter((builtin) => {
      const stored = manager.getGroup(builtin.id);
      return !stored || !stored.executor || stored.description !== builtin.description || !isDeepStrictEqual(stored.tools, builtin.tools);
    });
    if (!stale.length) return { items: null, result: 0 };
    const items = stale.map((builtin) => {
      const executor = manager.getGroup(builtin.id)?.executor ?? defaultExecutor(builtin.id);
      const { group } = planRegistration(manager, builtin.id, { description: builtin.description, tools: builtin.tools, executor }, { source: "builtin", now });
      return putGroupItem(db, group);
    });
    return { items, result: stale.length };
  });
}

const defaultExecutor = (groupId: string): Executor => (NATIVE_GROUP_IDS.includes(groupId) ? { type: "native" } : { type: "client" });
