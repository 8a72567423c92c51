import { isDeepStrictEqual } from "node:util";
import { putGroupItem, readGroupsAndShipped } from "../dynamo/catalog";
import { shipPolicies } from "../policy/ship";
import { SHIPPED_EDITION } from "../policy/shipped";
import type { Db } from "../dynamo/client";
import { builtinGroups } from "../builtin/groups";
import type { BuiltinGroupDefinition } from "../builtin/groups";
import type { Catalog } from "./catalog";
import { planRegistration } from "./register";
import type { Group } from "./schema";

const isStale = (builtin: BuiltinGroupDefinition, stored: Group | undefined) =>
  !stored || !stored.executor || stored.description !== builtin.description || !isDeepStrictEqual(stored.tools, builtin.tools);

/**
 * Registers the built-in groups where they are missing or differ from this code's definitions, and writes the shipped
 * policies the first time; a no-op otherwise. Every cold start runs this, so it reads the built-in groups (and the
 * shipped policies' marker) alone, and the whole catalog only when something must be written.
 */
export async function ensureBuiltins(db: Db, catalog: Catalog, now: string): Promise<number> {
  const { groups: stored, shippedEdition } = await readGroupsAndShipped(db, builtinGroups().map((builtin) => builtin.id));
  const written = builtinGroups().some((builtin) => isStale(builtin, stored.get(builtin.id))) ? await writeBuiltins(db, catalog, now) : 0;
  if (shippedEdition < SHIPPED_EDITION) await shipPolicies(db, catalog, now, shippedEdition);
  return written;
}

function writeBuiltins(db: Db, catalog: Catalog, now: string): Promise<number> {
  return catalog.change((manager) => {
    const stale = builtinGroups().filter((builtin) => isStale(builtin, manager.getGroup(builtin.id)));
    if (!stale.length) return { items: null, result: 0 };
    const items = stale.map((builtin) => {
      const executor = manager.getGroup(builtin.id)?.executor ?? builtin.executor;
      const { group } = planRegistration(manager, builtin.id, { description: builtin.description, tools: builtin.tools, executor }, { source: "builtin", now });
      return putGroupItem(db, group);
    });
    return { items, result: stale.length };
  });
}
