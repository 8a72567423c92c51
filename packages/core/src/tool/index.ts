import type { CatalogSnapshot } from "../group/snapshot";
import { effectivePolicy, isOverridden } from "../policy/rules";
import type { EffectivePolicy } from "../policy/rules";
import type { ToolQuery } from "./schema";
import { definitionTokens } from "./tokens";
import type { TokenCounter } from "./tokens";

export { forAgent, Name, ToolDefinition, ToolQuery } from "./schema";
export type { AgentToolDefinition } from "./schema";
export { definitionTokens, loadTokenCounter, totalTokens } from "./tokens";
export { anthropicInputSchema, exportTool, geminiSchema, ToolFormat, ToolsQuery } from "./exports";
export type { TokenCounter } from "./tokens";

export type ToolSummary = {
  name: string;
  group: string;
  description: string;
  category: string | null;
  tags: string[];
  disabled: boolean;
  /** The policy the guard applies: the tool's own x-toolgate with an admin's override over it. */
  policy: EffectivePolicy;
  /** Whether an admin's override changes any field of the tool's own policy. */
  overridden: boolean;
  /** What the tool costs in an agent's context, as the agent receives it. */
  tokens: number;
};

const UNCATEGORISED = "uncategorised";

/** Every tool of the catalog as the operator sees it: its effective policy (category, tags, switched off or not), whether an admin changed it, and its tokens. */
function summaries(snapshot: CatalogSnapshot, count: TokenCounter): ToolSummary[] {
  return snapshot.manager.getAllGroupIds().flatMap((groupId) =>
    (snapshot.manager.getGroup(groupId)?.tools ?? []).map((definition) => {
      const override = snapshot.overrides.get(definition.function.name);
      const policy = effectivePolicy(definition, override);
      return {
        name: definition.function.name,
        group: groupId,
        description: definition.function.description,
        category: policy.category ?? null,
        tags: policy.tags ?? [],
        disabled: policy.disabled,
        policy,
        overridden: isOverridden(override),
        tokens: definitionTokens(count, definition),
      };
    }),
  );
}

/** The tools of the catalog, by category and tag and by text in name or description. */
export function list(snapshot: CatalogSnapshot, query: ToolQuery, count: TokenCounter): ToolSummary[] {
  const text = query.q?.toLowerCase();
  return summaries(snapshot, count).filter(
    (tool) =>
      (query.category === undefined || tool.category === query.category) &&
      (query.tag === undefined || tool.tags.includes(query.tag)) &&
      (text === undefined || tool.name.toLowerCase().includes(text) || tool.description.toLowerCase().includes(text)),
  );
}

/** Over the whole catalog: how many tools, how many switched off, how many per category. */
export function stats(snapshot: CatalogSnapshot, count: TokenCounter) {
  const tools = summaries(snapshot, count);
  const perCategory = new Map<string, number>();
  for (const tool of tools) perCategory.set(tool.category ?? UNCATEGORISED, (perCategory.get(tool.category ?? UNCATEGORISED) ?? 0) + 1);
  return {
    totalTools: tools.length,
    disabledTools: tools.filter((tool) => tool.disabled).length,
    totalTokens: tools.reduce((sum, tool) => sum + tool.tokens, 0),
    categories: Object.fromEntries([...perCategory].sort(([a], [b]) => a.localeCompare(b))),
  };
}
