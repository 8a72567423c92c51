import type { ToolGroupManager } from "../../group/manager";
import type { Group } from "../../group/schema";
import type { PolicyTargets } from "../schema";
import { problemsOf } from "./read";
import type { PolicyProblem } from "./read";
import { cedarSchema } from "./schema";
import type { CatalogSchema } from "./schema";
import { cedar } from "./wasm";

const MAX_SCHEMAS_PER_SNAPSHOT = 64;
const schemas = new WeakMap<ToolGroupManager, Map<string, CatalogSchema>>();

/** The groups whose tools the policies can name: Cedar parses a schema in time that grows with it, so only these go in. */
function groupsNamed(manager: ToolGroupManager, targets: readonly PolicyTargets[]): string[] | "all" {
  if (targets.includes("all")) return "all";
  const ids = new Set<string>();
  for (const target of targets as Exclude<PolicyTargets, "all">[]) {
    for (const tool of target.tools) {
      const group = manager.getToolGroup(tool);
      if (group !== null) ids.add(group);
    }
    for (const group of target.groups) if (manager.getGroup(group)) ids.add(group);
  }
  return [...ids].sort();
}

/** The Cedar schema of some of a snapshot's groups (or all of them), built once per snapshot. */
export function catalogSchema(manager: ToolGroupManager, groupIds: readonly string[] | "all" = "all"): CatalogSchema {
  const byGroups = schemas.get(manager) ?? new Map<string, CatalogSchema>();
  schemas.set(manager, byGroups);
  const key = groupIds === "all" ? "*" : groupIds.join("\u0000");
  let schema = byGroups.get(key);
  if (!schema) {
    const ids = groupIds === "all" ? manager.getAllGroupIds() : groupIds;
    const groups = ids.flatMap((id): Group[] => {
      const group = manager.getGroup(id);
      return group ? [group] : [];
    });
    if (byGroups.size >= MAX_SCHEMAS_PER_SNAPSHOT) byGroups.clear();
    byGroups.set(key, (schema = cedarSchema(groups)));
  }
  return schema;
}

export type ToValidate = { id: string; cedar: string; targets: PolicyTargets };

/**
 * Each policy's problems against the catalog's schema (strict validation: an unknown tool or argument, or a type
 * mismatch), with a schema of the groups the policies name.
 */
export async function validateAgainstCatalog(manager: ToolGroupManager, policies: readonly ToValidate[]): Promise<Map<string, PolicyProblem[]>> {
  const problems = new Map<string, PolicyProblem[]>(policies.map((policy) => [policy.id, []]));
  if (!policies.length) return problems;
  const wasm = await cedar();
  const texts = new Map(policies.map((policy) => [policy.id, policy.cedar]));
  const answer = wasm.validate({
    schema: catalogSchema(manager, groupsNamed(manager, policies.map((policy) => policy.targets))).schema,
    policies: { staticPolicies: Object.fromEntries(texts) },
    validationSettings: { mode: "strict" },
  });
  if (answer.type === "failure") {
    for (const policy of policies) problems.get(policy.id)!.push(...problemsOf(policy.cedar, answer.errors));
    return problems;
  }
  for (const { policyId, error } of answer.validationErrors) problems.get(policyId)?.push(...problemsOf(texts.get(policyId) ?? "", [error]));
  return problems;
}
