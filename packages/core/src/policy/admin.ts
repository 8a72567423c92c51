import { notFound } from "../error";
import type { Db } from "../dynamo/client";
import { putOverrideItem } from "../dynamo/catalog";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import { ToolPolicy } from "../tool/definition";
import { parseOr } from "../validation";
import { effectivePolicy } from "./index";
import type { PolicyOverride } from "./index";

export type PolicyView = { name: string; group: string; policy: ReturnType<typeof effectivePolicy>; override: PolicyOverride | null };

export function policyView(snapshot: CatalogSnapshot, toolName: string): PolicyView {
  const found = snapshot.manager.findTool(toolName);
  if (!found) throw notFound("unknown_tool", `There is no tool named "${toolName}".`, { toolName });
  const override = snapshot.overrides.get(toolName);
  return { name: toolName, group: found.group.id, policy: effectivePolicy(found.definition, override), override: override ?? null };
}

/** Writes an override through the catalog, so every process applies it on its next call. */
function writeOverride(db: Db, catalog: Catalog, toolName: string, change: (previous: PolicyOverride | undefined) => Omit<PolicyOverride, "updatedAt">, now: string) {
  return catalog.change((manager, snapshot) => {
    if (!manager.findTool(toolName)) throw notFound("unknown_tool", `There is no tool named "${toolName}".`, { toolName });
    const override: PolicyOverride = { ...change(snapshot.overrides.get(toolName)), updatedAt: now };
    const overrides = new Map(snapshot.overrides).set(toolName, override);
    return { items: [putOverrideItem(db, toolName, override)], result: policyView({ ...snapshot, overrides }, toolName) };
  });
}

export function setPolicy(db: Db, catalog: Catalog, toolName: string, input: unknown, now: string) {
  const policy = parseOr(ToolPolicy, input, "invalid_policy", "The policy");
  return writeOverride(db, catalog, toolName, (previous) => ({ ...previous, policy }), now);
}

export function setDisabled(db: Db, catalog: Catalog, toolName: string, disabled: boolean, now: string) {
  return writeOverride(db, catalog, toolName, (previous) => ({ ...previous, disabled }), now);
}
