import { isDeepStrictEqual } from "node:util";
import { putGroupItem } from "../dynamo/catalog";
import type { Db } from "../dynamo/client";
import { BUILTIN_GROUPS } from "./builtin";
import type { Catalog } from "./catalog";
import { planRegistration } from "./register";

/** Registers the built-in groups where they are missing or differ from this code's definitions; a no-op otherwise. */
export function ensureBuiltins(db: Db, catalog: Catalog, now: string): Promise<number> {
  return catalog.change((manager) => {
    const stale = BUILTIN_GROUPS.filter((builtin) => {
      const stored = manager.getGroup(builtin.id);
      return !stored || stored.description !== builtin.description || !isDeepStrictEqual(stored.tools, builtin.tools);
    });
    if (!stale.length) return { items: null, result: 0 };
    const items = stale.map((builtin) => {
      const { group } = planRegistration(manager, builtin.id, { description: builtin.description, tools: builtin.tools }, { source: "builtin", now });
      return putGroupItem(db, group);
    });
    return { items, result: stale.length };
  });
}
