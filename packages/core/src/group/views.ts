import { definitionTokens } from "../tool/tokens";
import type { TokenCounter } from "../tool/tokens";
import { scopeOfGroup } from "./schema";
import type { Group, GroupSummary } from "./schema";
import { executorSummary } from "../executor/types";

/** A group as the API shows it: identity first, full tool definitions last. */
export const groupView = (group: Group) => ({
  id: group.id,
  scope: scopeOfGroup(group),
  description: group.description,
  toolCount: group.tools.length,
  reserved: group.reserved,
  source: group.source,
  ...(group.module ? { module: group.module } : {}),
  ...(group.executor ? { executor: group.executor } : {}),
  ...(group.offerPolicy ? { offerPolicy: group.offerPolicy } : {}),
  registeredAt: group.registeredAt,
  updatedAt: group.updatedAt,
  tools: group.tools,
  ...(group.offers ? { offers: group.offers } : {}),
});

export const summarise = (group: Group): GroupSummary => ({
  id: group.id,
  scope: scopeOfGroup(group),
  description: group.description,
  toolCount: group.tools.length,
  tools: group.tools.map((tool) => tool.function.name),
  reserved: group.reserved,
  source: group.source,
  ...(group.module ? { module: group.module } : {}),
  executor: group.executor ? executorSummary(group.executor) : null,
  updatedAt: group.updatedAt,
});

/** What a group's tools cost in an agent's context: in all, and tool by tool. */
export function groupTokens(group: Group, count: TokenCounter) {
  const toolTokens = Object.fromEntries(group.tools.map((tool) => [tool.function.name, definitionTokens(count, tool)]));
  return { tokens: Object.values(toolTokens).reduce((sum, tokens) => sum + tokens, 0), toolTokens };
}
