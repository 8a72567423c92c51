import { groupNotFound } from "./errors";
import { totalTokens } from "../tool/tokens";
import type { TokenCounter } from "../tool/tokens";
import type { Group } from "./schema";
import type { GroupScope } from "../scope/schema";
import type { CatalogSnapshot } from "./snapshot";

export { Executor } from "../executor/schema";
export { Catalog } from "./catalog";
export { bindExecutor, MAX_GROUP_BYTES, parseGroupId, registerGroup, unregisterGroup } from "./register";
export type { Registration, RegisterOutcome } from "./register";
export { Group, GroupDefinition, GroupInput, GroupListQuery, GroupSource, scopeOfGroup } from "./schema";
export { importTools, refreshGroup, withTools } from "./import";
export type { RefreshOutcome } from "./import";
export type { GroupSummary } from "./schema";
export type { CatalogSnapshot } from "./snapshot";
export { groupTokens, groupView, summarise } from "./views";

export { GROUP_ERRORS, groupError, groupNotFound } from "./errors";

export function get(snapshot: CatalogSnapshot, id: string): Group {
  const group = snapshot.manager.getGroup(id);
  if (!group) throw groupNotFound(id);
  return group;
}

export const list = (snapshot: CatalogSnapshot, scope?: GroupScope) =>
  snapshot.manager.listGroups().filter((summary) => scope === undefined || summary.scope === scope);

/** Every group's summary (or those of one scope) with what its tools cost in an agent's context. */
export const listWithTokens = (snapshot: CatalogSnapshot, count: TokenCounter, scope?: GroupScope) =>
  list(snapshot, scope).map((summary) => ({ ...summary, tokens: totalTokens(count, get(snapshot, summary.id).tools) }));
