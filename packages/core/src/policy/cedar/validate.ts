import type { ToolGroupManager } from "../../group/manager";
import { SYSTEM } from "../../scope/schema";
import type { GroupScope, Scope } from "../../scope/schema";
import type { PolicyTargets } from "../schema";
import { mergedProblems } from "./layered-problems";
import { definedIn, layerGroups, layersOf } from "./layers";
import { actionsInConditions, problemsOf } from "./read";
import type { PolicyProblem } from "./read";
import { cedarSchema } from "./schema";
import type { CatalogSchema } from "./schema";
import { cedar } from "./wasm";
import { isOfferAction } from "../../offer/schema";
import type { CedarWasm } from "./wasm";

const MAX_SCHEMAS_PER_SNAPSHOT = 256;

/** The groups that offer resources or prompts: those a policy naming "resources/read" or "prompts/get" can meet. */
const offeringGroups = (manager: ToolGroupManager) => manager.getAllGroupIds().filter((id) => manager.getGroup(id)?.offers);
const schemas = new WeakMap<ToolGroupManager, Map<string, CatalogSchema>>();

export type ToValidate = { id: string; cedar: string; targets: PolicyTargets; scope: Scope };

/**
 * The groups whose tools the policies can name in a layer: Cedar parses a schema in time that grows with it, so only
 * these go in. A narrower layer holds its own groups too, and for a policy about every tool, only those and the groups
 * of the actions its conditions name (everyone's definitions are checked in everyone's layer).
 */
function groupsNamed(wasm: CedarWasm, manager: ToolGroupManager, layer: GroupScope, policies: readonly ToValidate[]): string[] | "all" {
  if (layer === SYSTEM && policies.some((policy) => policy.targets === "all")) return "all";
  const ids = new Set(layer === SYSTEM ? [] : manager.getAllGroupIds(layer));
  for (const { targets, cedar: text } of policies) {
    const named = targets === "all" ? actionsInConditions(wasm, text) : targets;
    for (const tool of named.tools) {
      if (isOfferAction(tool)) offeringGroups(manager).forEach((id) => ids.add(id));
      const group = manager.getToolGroup(tool);
      if (group !== null) ids.add(group);
    }
    for (const group of named.groups) if (manager.getGroup(group)) ids.add(group);
  }
  return [...ids].sort();
}

/** The Cedar schema of some of a snapshot's groups (or all of them) as a layer sees them, built once per snapshot. */
export function catalogSchema(manager: ToolGroupManager, groupIds: readonly string[] | "all" = "all", layer: GroupScope = SYSTEM): CatalogSchema {
  const byGroups = schemas.get(manager) ?? new Map<string, CatalogSchema>();
  schemas.set(manager, byGroups);
  const key = `${layer}\u0001${groupIds === "all" ? "*" : groupIds.join("\u0000")}`;
  let schema = byGroups.get(key);
  if (!schema) {
    const ids = groupIds === "all" ? manager.getAllGroupIds() : groupIds;
    if (byGroups.size >= MAX_SCHEMAS_PER_SNAPSHOT) byGroups.clear();
    byGroups.set(key, (schema = cedarSchema(layerGroups(manager, layer, ids))));
  }
  return schema;
}

/** Each policy's problems in one layer (strict validation), with one schema of the groups they name. */
function validateIn(wasm: CedarWasm, manager: ToolGroupManager, layer: GroupScope, policies: readonly ToValidate[]): Map<string, PolicyProblem[]> {
  const problems = new Map<string, PolicyProblem[]>(policies.map((policy) => [policy.id, []]));
  const texts = new Map(policies.map((policy) => [policy.id, policy.cedar]));
  const answer = wasm.validate({
    schema: catalogSchema(manager, groupsNamed(wasm, manager, layer, policies), layer).schema,
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

/**
 * Each policy's problems against the catalog (strict validation: an unknown tool or argument, or a type mismatch),
 * in every layer whose definitions of the tools it names it can meet ("Tools in layers"): a department's or an
 * agent's own tool of a name everyone's has must satisfy it too. One validation per layer, of the policies it concerns.
 */
export async function validateAgainstCatalog(manager: ToolGroupManager, policies: readonly ToValidate[]): Promise<Map<string, PolicyProblem[]>> {
  if (!policies.length) return new Map();
  const wasm = await cedar();
  let allScopes: GroupScope[] | undefined;
  const layers = new Map(policies.map((policy) => [policy.id, layersOf(manager, policy, () => (allScopes ??= manager.scopes()))]));
  const byLayer = new Map<GroupScope, ToValidate[]>();
  for (const policy of policies) {
    for (const layer of layers.get(policy.id)!) {
      const concerned = byLayer.get(layer);
      if (concerned) concerned.push(policy);
      else byLayer.set(layer, [policy]);
    }
  }
  const found = new Map([...byLayer].map(([layer, concerned]) => [layer, validateIn(wasm, manager, layer, concerned)]));
  return new Map(
    policies.map((policy) => [
      policy.id,
      mergedProblems(
        layers.get(policy.id)!.map((layer) => ({
          layer,
          problems: found.get(layer)!.get(policy.id) ?? [],
          defines: () => definedIn(manager, layer, policy.targets),
        })),
      ),
    ]),
  );
}
