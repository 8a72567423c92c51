import type { Db } from "../dynamo/client";
import { readDepartmentCounts } from "../dynamo/departments";
import type { CatalogSnapshot } from "../group/snapshot";
import { scopeOf } from "../scope/schema";

/** A department in use: the name its agents carry, how many of them are active, and the groups of its scope. */
export type Department = { name: string; agents: number; groups: string[] };

/** The groups of each department's scope in the catalog (sorted), by department name. */
function departmentGroups({ manager }: CatalogSnapshot): Map<string, string[]> {
  return new Map(
    manager.scopes().flatMap((scope) => {
      const named = scopeOf(scope);
      return named.kind === "department" ? [[named.name, manager.getAllGroupIds(scope)] as const] : [];
    }),
  );
}

/** Every department in use (an active agent carries its name, or a group is of its scope), by name. */
export async function listDepartments(db: Db, snapshot: CatalogSnapshot): Promise<Department[]> {
  const counts = await readDepartmentCounts(db);
  const groups = departmentGroups(snapshot);
  const names = new Set([...[...counts].filter(([, agents]) => agents > 0).map(([name]) => name), ...groups.keys()]);
  return [...names]
    .sort((a, b) => a.localeCompare(b))
    .map((name) => ({ name, agents: counts.get(name) ?? 0, groups: groups.get(name) ?? [] }));
}
