import { accessError } from "../access/errors";
import type { Db } from "../dynamo/client";
import { putOverrideItem } from "../dynamo/catalog";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import { POLICY_ERRORS } from "./errors";
import { ToolPolicy } from "./schema";
import { parseOr } from "../validation";
import { effectivePolicy } from "./rules";
import type { PolicyOverride, PolicyPatch } from "./schema";

export type PolicyView = { name: string; group: string; policy: ReturnType<typeof effectivePolicy>; override: PolicyOverride | null };

export type PolicyChange = "replaced" | "merged";

const CHANGE_MESSAGES: Record<PolicyChange, string> = {
  replaced:
    "The body replaced the tool's policy override; fields it leaves out fall back to the tool's own x-toolgate policy. Use PATCH to change single fields.",
  merged: "The body was merged into the tool's policy override; fields set to null were removed from it and fall back to the tool's own x-toolgate policy.",
};

const unknownTool = (toolName: string) => accessError("unknown_tool", `There is no tool named "${toolName}".`, { toolName });

export function policyView(snapshot: CatalogSnapshot, toolName: string): PolicyView {
  const found = snapshot.manager.findTool(toolName);
  if (!found) throw unknownTool(toolName);
  const override = snapshot.overrides.get(toolName);
  return { name: toolName, group: found.group.id, policy: effectivePolicy(found.definition, override), override: override ?? null };
}

/** Writes an override through the catalog, so every process applies it on its next call. */
function writeOverride(db: Db, catalog: Catalog, toolName: string, change: (previous: PolicyOverride | undefined) => Omit<PolicyOverride, "updatedAt">, now: string) {
  return catalog.change((manager, snapshot) => {
    if (!manager.findTool(toolName)) throw unknownTool(toolName);
    const override: PolicyOverride = { ...change(snapshot.overrides.get(toolName)), updatedAt: now };
    const overrides = new Map(snapshot.overrides).set(toolName, override);
    return { items: [putOverrideItem(db, toolName, override)], result: policyView({ ...snapshot, overrides }, toolName) };
  });
}

const answered = (view: PolicyView, change: PolicyChange) => ({ ...view, change, message: CHANGE_MESSAGES[change] });

/** PUT: the body becomes the whole override policy. */
export async function setPolicy(db: Db, catalog: Catalog, toolName: string, policy: ToolPolicy, now: string) {
  return answered(await writeOverride(db, catalog, toolName, (previous) => ({ ...previous, policy }), now), "replaced");
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** JSON Merge Patch (RFC 7396): null removes a field, objects merge field by field, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const base = isPlainObject(target) ? target : {};
  const keys = new Set([...Object.keys(base), ...Object.keys(patch)]);
  return Object.fromEntries(
    [...keys].flatMap((key) => {
      if (!Object.hasOwn(patch, key)) return [[key, base[key]]];
      if (patch[key] === null) return [];
      return [[key, mergePatch(base[key], patch[key])]];
    }),
  );
}

/** PATCH: the body is merged into the current override policy. */
export async function mergePolicy(db: Db, catalog: Catalog, toolName: string, patch: PolicyPatch, now: string) {
  const view = await writeOverride(
    db,
    catalog,
    toolName,
    (previous) => ({ ...previous, policy: parseOr(ToolPolicy, mergePatch(previous?.policy ?? {}, patch), POLICY_ERRORS, "invalid_policy", "The merged policy") }),
    now,
  );
  return answered(view, "merged");
}

export function setDisabled(db: Db, catalog: Catalog, toolName: string, disabled: boolean, now: string) {
  return writeOverride(db, catalog, toolName, (previous) => ({ ...previous, disabled }), now);
}
