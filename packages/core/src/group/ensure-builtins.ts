import { isDeepStrictEqual } from "node:util";
import { putGroupItem, readGroups } from "../dynamo/catalog";
import type { Db } from "../dynamo/client";
import { builtinGroups, NATIVE_GROUP_IDS } from "./builtin";
import type { Executor } from "../executor/schema";
import type { Catalog } from "./catalog";
import { planRegistration } from "./register";
import type { Group } from "./schema";

type Builtin = ReturnType<typeof builtinGroups>[number];

const isStale = (builtin: Builtin, stored: Group | undefined) =>
  !stored || !stored.executor || stored.description !== builtin.description || !isDeepStrictEqual(stored.tools, builtin.tools);

/**
 * Registers the built-in groups where they are missing or differ from this code's definitions; a no-op otherwise.
 * Every cold start runs this, so it reads the built-in groups alone, and the whole catalog only when one must be written.
 */
export async function ensureBuiltins(db: Db, catalog: Catalog, now: string): Promise<number> {
  const stored = await readGroups(db, builtinGroups().map((builtin) => builtin.id));
  if (!builtinGroups().some((builtin) => isStale(builtin, stored.get(builtin.id)))) return 0;
  return catalog.change((manager) => {
    const stale = builtinGroups().filter((builtin) => isStale(builtin, manager.getGroup(builtin.id)));
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
