import type { Group, GroupSummary } from "./schema";

/** A group as the API shows it: identity first, full tool definitions last. */
export const groupView = (group: Group) => ({
  id: group.id,
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
  description: group.description,
  toolCount: group.tools.length,
  tools: group.tools.map((tool) => tool.function.name),
  reserved: group.reserved,
  source: group.source,
  ...(group.module ? { module: group.module } : {}),
  updatedAt: group.updatedAt,
});
