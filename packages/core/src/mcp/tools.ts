import type { Tool } from "@modelcontextprotocol/server";
import { listedTools } from "../access/index";
import type { Allowed, View } from "../access/index";
import { annotationsOf } from "../tool/exports";
import { executedBy } from "../guard/plan";
import { ListCursor } from "./schema";

/** Thrown for a cursor that is not one toolgate issued to this agent for its current list; answered -32602. */
export class StaleCursorError extends Error {}

/** A tool as MCP lists it: its schemas whole, as they were registered or imported (`$schema` included). */
const mcpTool = ({ definition, policy }: Allowed): Tool => ({
  name: definition.function.name,
  description: definition.function.description,
  inputSchema: definition.function.parameters as Tool["inputSchema"],
  ...(definition.outputSchema ? { outputSchema: definition.outputSchema as Tool["outputSchema"] } : {}),
  annotations: annotationsOf(policy),
});

/**
 * What an agent's MCP tool list holds: the tools in its list (as its role loads them), but those its own runtime
 * executes (an MCP client has no way to report their results), by name. ask_user is a person's to answer, so it is listed.
 */
export const mcpTools = (view: View): Tool[] =>
  listedTools(view.access)
    .filter(({ group, definition }) => !group.executor || executedBy(group.id, definition.function.name, group.executor) !== "client")
    .map(mcpTool)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const encodeCursor = (cursor: ListCursor) => Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");

function decodeCursor(text: string): ListCursor {
  try {
    return ListCursor.parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
  } catch {
    throw new StaleCursorError("The cursor is not one toolgate issued; list the tools again from the start.");
  }
}

/** Which of an agent's lists a cursor pages: tools (none named), or what its groups offer. */
export type ListName = ListCursor["list"];

/** One page of one of the agent's lists; a cursor from another agent, another list or an older role or catalog is refused. */
export function pageOf<T>(view: View, items: readonly T[], pageSize: number, cursor: string | undefined, list?: ListName): { page: T[]; nextCursor?: string } {
  const bound = { agent: view.access.agent.id, role: view.access.role.version, catalog: view.version, ...(list ? { list } : {}) };
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = decodeCursor(cursor);
    if (decoded.agent !== bound.agent || decoded.role !== bound.role || decoded.catalog !== bound.catalog || decoded.list !== list)
      throw new StaleCursorError("The cursor belongs to another agent or list, or to a list that has changed since; list again from the start.");
    offset = decoded.offset;
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { page, nextCursor: encodeCursor({ ...bound, offset: next }) } : { page };
}

/** One page of the agent's tools. */
export function toolsPage(view: View, pageSize: number, cursor?: string): { tools: Tool[]; nextCursor?: string } {
  const { page, nextCursor } = pageOf(view, mcpTools(view), pageSize, cursor);
  return nextCursor ? { tools: page, nextCursor } : { tools: page };
}
