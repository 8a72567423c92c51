import { definitionTokens } from "../tool/tokens";
import type { TokenCounter } from "../tool/tokens";
import { scopeOfGroup } from "./schema";
import type { Group, GroupSummary } from "./schema";
import type { Executor } from "../executor/schema";

/** Which executor runs a group's tools, safe to show: its type and URL, never its headers (they may name secrets). */
export const executorSummary = (executor: Executor | undefined): GroupSummary["executor"] =>
  !executor ? null : executor.type === "http" || executor.type === "mcp" ? { type: executor.type, url: executor.url } : { type: executor.type };

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
  registeredAt: group.registeredAt,
  updatedAt: group.updatedAt,
  tools: group.tools,
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
  executor: executorSummary(group.executor),
  updatedAt: group.updatedAt,
});

/** What a group's tools cost in an agent's context: in all, and tool by tool. */
export function groupTokens(group: Group, count: TokenCounter) {
  const toolTokens = Object.fromEntries(group.tools.map((tool) => [tool.function.name, definitionTokens(count, tool)]));
  return { tokens: Object.values(toolTokens).reduce((sum, tokens) => sum + tokens, 0), toolTokens };
}
