import { accessError } from "../access/errors";
import type { Db } from "../dynamo/client";
import { putOverrideItem } from "../dynamo/catalog";
import type { Catalog, CatalogSnapshot } from "../group/catalog";
import * as z from "zod";
import { POLICY_ERRORS, policyError } from "./errors";
import { GroupScope, SYSTEM } from "../scope/schema";
import { missingInScope } from "../scope/exists";
import { ToolPolicy } from "./schema";
import { parseOr } from "../validation";
import { effectivePolicy, layeredPolicy, overrideKey } from "./rules";
import type { PolicyOverride, PolicyPatch } from "./schema";

/** A tool's settings for everyone (scope "system"), or what a department's or an agent's override adds to them. */
export type PolicyView = { name: string; group: string; scope: GroupScope; policy: ReturnType<typeof effectivePolicy>; override: PolicyOverride | null };

export type PolicyChange = "replaced" | "merged";

/** Whose settings of which tool an override changes. */
export type OverrideTarget = { toolName: string; scope: GroupScope };

/** `?scope=`: everyone's settings of a tool by default, or a department's or an agent's override of them. */
export const OverrideQuery = z.strictObject({ scope: GroupScope.optional() });

const CHANGE_MESSAGES: Record<PolicyChange, string> = {
  replaced:
    "The body replaced the tool's policy override; fields it leaves out fall back to the tool's own x-toolgate policy. Use PATCH to change single fields.",
  merged: "The body was merged into the tool's policy override; fields set to null were removed from it and fall back to the tool's own x-toolgate policy.",
};

const unknownTool = (toolName: string) => accessError("unknown_tool", `There is no tool named "${toolName}".`, { toolName });

/** The tool of that name as the scope's agents meet it: its own group's if it has one there, else everyone's. */
const toolFor = (snapshot: CatalogSnapshot, toolName: string, scope: GroupScope) =>
  (scope === SYSTEM ? undefined : snapshot.manager.toolIn(scope, toolName)) ?? snapshot.manager.findTool(toolName);

export function policyView(snapshot: CatalogSnapshot, toolName: string, scope: GroupScope = SYSTEM): PolicyView {
  const found = toolFor(snapshot, toolName, scope);
  if (!found) throw unknownTool(toolName);
  const override = snapshot.overrides.get(overrideKey(toolName, scope));
  const policy = scope === SYSTEM ? effectivePolicy(found.definition, override) : layeredPolicy(found.definition, snapshot.overrides, [scope]);
  return { name: toolName, group: found.group.id, scope, policy, override: override ?? null };
}

/** Writes an override through the catalog, so every process applies it on its next call; an agent's scope must name an agent. */
async function writeOverride(
  db: Db,
  catalog: Catalog,
  target: { toolName: string; scope: GroupScope },
  change: (previous: PolicyOverride | undefined) => Omit<PolicyOverride, "updatedAt">,
  now: string,
) {
  const { toolName, scope } = target;
  const missing = await missingInScope(db, scope);
  if (missing) throw policyError("invalid_policy", missing, { scope });
  const key = overrideKey(toolName, scope);
  return catalog.change((_manager, snapshot) => {
    if (!toolFor(snapshot, toolName, scope)) throw unknownTool(toolName);
    const override: PolicyOverride = { ...change(snapshot.overrides.get(key)), updatedAt: now };
    const overrides = new Map(snapshot.overrides).set(key, override);
    return { items: [putOverrideItem(db, key, override)], result: policyView({ ...snapshot, overrides }, toolName, scope) };
  });
}

const answered = (view: PolicyView, change: PolicyChange) => ({ ...view, change, message: CHANGE_MESSAGES[change] });

/** PUT: the body becomes the whole override policy. */
export async function setPolicy(db: Db, catalog: Catalog, target: OverrideTarget, policy: ToolPolicy, now: string) {
  return answered(await writeOverride(db, catalog, target, (previous) => ({ ...previous, policy }), now), "replaced");
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
export async function mergePolicy(db: Db, catalog: Catalog, target: OverrideTarget, patch: PolicyPatch, now: string) {
  const view = await writeOverride(
    db,
    catalog,
    target,
    (previous) => ({ ...previous, policy: parseOr(ToolPolicy, mergePatch(previous?.policy ?? {}, patch), POLICY_ERRORS, "invalid_policy", "The merged policy") }),
    now,
  );
  return answered(view, "merged");
}

export function setDisabled(db: Db, catalog: Catalog, target: OverrideTarget, disabled: boolean, now: string) {
  return writeOverride(db, catalog, target, (previous) => ({ ...previous, disabled }), now);
}
