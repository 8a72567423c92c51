import { ToolgateError } from "../error";
import { loadMcp } from "../executor/load-mcp";
import { invalidNames, toToolDefinition } from "../executor/mcp-tools";
import { refuseLiteralSecrets } from "../executor/secrets";
import type { SecretSource } from "../executor/secrets";
import type { McpExecutor } from "../executor/schema";
import type { Db } from "../dynamo/client";
import type { ToolDefinition } from "../tool/schema";
import { parseOr, summarise } from "../validation";
import type { Catalog } from "./catalog";
import { GROUP_ERRORS, groupError, groupNotFound } from "./errors";
import { parseGroupId, registerGroup } from "./register";
import type { RegisterOutcome } from "./register";
import { GroupDefinition, MAX_TOOLS_PER_GROUP } from "./schema";
import type { GroupInput } from "./schema";

/** How long listing an MCP server's tools may take: a registration answers within API Gateway's 30 s. */
export const IMPORT_TIMEOUT_MS = 15_000;

const importFailed = (executor: McpExecutor, error: ToolgateError) =>
  groupError(
    "mcp_import_failed",
    `The tools of the MCP server at ${new URL(executor.url).origin} could not be imported: ${
      error.code === "tool_timeout" ? `it did not list them within ${IMPORT_TIMEOUT_MS} ms.` : error.message
    } Nothing was registered.`,
    { ...(typeof error.details.secret === "string" ? { secret: error.details.secret } : {}), recoverable: true },
  );

const invalidImport = (executor: McpExecutor, details: { path: string; message: string }[]) =>
  groupError("invalid_group_def", `The tools of the MCP server at ${new URL(executor.url).origin} cannot be registered: ${summarise(details)}.`, { details });

/** The server's tools (every page of tools/list) as toolgate tool definitions, named with the executor's prefix. */
export async function importTools(executor: McpExecutor, secrets: SecretSource): Promise<ToolDefinition[]> {
  let listed;
  try {
    listed = await (await loadMcp()).listMcpTools(executor, secrets, IMPORT_TIMEOUT_MS);
  } catch (error) {
    throw error instanceof ToolgateError && error.status >= 500 ? importFailed(executor, error) : error;
  }
  if (listed.length === 0) throw invalidImport(executor, [{ path: "tools", message: "the server lists no tools" }]);
  if (listed.length > MAX_TOOLS_PER_GROUP)
    throw invalidImport(executor, [{ path: "tools", message: `the server lists ${listed.length} tools; a group can have at most ${MAX_TOOLS_PER_GROUP}` }]);
  const badNames = invalidNames(executor, listed);
  if (badNames.length) throw invalidImport(executor, badNames);
  return listed.map((tool) => toToolDefinition(executor, tool));
}

/** The group to register: given tools as they are; without tools, an MCP server's imported from it. */
export async function withTools(input: GroupInput, secrets: SecretSource): Promise<GroupDefinition> {
  if (input.tools !== undefined || input.executor?.type !== "mcp") return parseOr(GroupDefinition, input, GROUP_ERRORS, "invalid_group_def", "The group definition");
  refuseLiteralSecrets(input.executor.headers);
  const tools = await importTools(input.executor, secrets);
  return parseOr(GroupDefinition, { ...input, tools }, GROUP_ERRORS, "invalid_group_def", `The tools imported from the MCP server at ${new URL(input.executor.url).origin}`);
}

export type RefreshOutcome = RegisterOutcome & { added: string[]; removed: string[] };

/**
 * Imports an MCP-served group's tools again and replaces its tools with them, by the same rules as any registration.
 * A group changed meanwhile (another registration, a refresh) is not overwritten: 409 group_changed.
 */
export async function refreshGroup(db: Db, catalog: Catalog, id: string, secrets: SecretSource, now: string): Promise<RefreshOutcome> {
  const groupId = parseGroupId(id);
  const group = (await catalog.snapshot()).manager.getGroup(groupId);
  if (!group) throw groupNotFound(groupId);
  const executor = group.executor;
  if (executor?.type !== "mcp")
    throw groupError("not_an_mcp_group", `The group "${groupId}" is not served by an MCP server ({ "type": "mcp" } executor), so it has no tools to import.`, { groupId });
  const tools = await importTools(executor, secrets);
  const outcome = await registerGroup(
    db,
    catalog,
    groupId,
    { description: group.description, executor, tools },
    { source: group.source, ...(group.module ? { module: group.module } : {}), now, unchangedSince: group.updatedAt },
  );
  const before = new Set(group.tools.map((tool) => tool.function.name));
  const after = new Set(tools.map((tool) => tool.function.name));
  return { ...outcome, added: [...after].filter((name) => !before.has(name)), removed: [...before].filter((name) => !after.has(name)) };
}
