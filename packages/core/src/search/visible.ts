import * as z from "zod";
import { allowedTools } from "../access/index";
import type { Access } from "../access/index";
import type { ToolGroupManager } from "../group/manager";
import { forAgent } from "../tool/schema";
import type { AgentToolDefinition } from "../tool/schema";
import { buildSearchIndex } from "./index-build";
import type { SearchIndex } from "./index-build";
import { searchTools } from "./rank";
import { MAX_QUERY_CHARS } from "./schema";

/** GET /agents/:id/tools/search?q=&limit=: a task in the caller's words, and how many tools to answer with. */
export const SearchQuery = z.strictObject({
  q: z.string().trim().min(1).max(MAX_QUERY_CHARS),
  limit: z.coerce.number().int().min(1).max(50).default(5),
});
export type SearchQuery = z.infer<typeof SearchQuery>;

const indexes = new WeakMap<ToolGroupManager, SearchIndex>();

/** The catalog's search index, built once per catalog snapshot (the manager is the snapshot's). */
function indexOf(manager: ToolGroupManager): SearchIndex {
  let index = indexes.get(manager);
  if (!index) {
    const entries = manager
      .listGroups()
      .flatMap((summary) => {
        const group = manager.getGroup(summary.id);
        return (group?.tools ?? []).map((definition) => ({ definition, groupId: summary.id, groupDescription: group!.description }));
      });
    index = buildSearchIndex(entries);
    indexes.set(manager, index);
  }
  return index;
}

/** The tools this agent may call that best match the task, best first: never another tool, nor anything about one. */
export function searchVisible(access: Access, query: SearchQuery): AgentToolDefinition[] {
  const allowed = new Map(allowedTools(access).map(({ definition }) => [definition.function.name, definition]));
  return searchTools(indexOf(access.manager), query.q, { limit: query.limit, allowed: (name) => allowed.has(name) }).map((hit) =>
    forAgent(allowed.get(hit.name)!),
  );
}
