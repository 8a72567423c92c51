import { ToolgateError } from "../error";
import { loadMcp } from "../executor/load-mcp";
import { invalidNames, toToolDefinition } from "../executor/mcp-tools";
import { refuseLiteralSecrets } from "../executor/secrets";
import type { SecretSource } from "../executor/secrets";
import { refuseStdio } from "../executor/stdio-check";
import { loadStdio } from "../executor/stdio-load";
import type { Db } from "../dynamo/client";
import type { ToolDefinition } from "../tool/schema";
import { parseOr, summarise } from "../validation";
import type { Catalog } from "./catalog";
import { GROUP_ERRORS, groupError, groupNotFound } from "./errors";
import { importOffers } from "./import-offers";
import { parseGroupId, registerGroup } from "./register";
import type { RegisterOutcome } from "./register";
import { GroupDefinition, MAX_TOOLS_PER_GROUP } from "./schema";
import type { GroupInput } from "./schema";
import { IMPORT_TIMEOUT_MS, importFailed, serverOf, STDIO_IMPORT_TIMEOUT_MS } from "./import-server";
import type { ImportedFrom } from "./import-server";

const invalidImport = (executor: ImportedFrom, groupId: string, details: { path: string; message: string }[]) =>
  groupError("invalid_group_def", `The tools of ${serverOf(executor, groupId)} cannot be registered: ${summarise(details)}.`, { details });

const listTools = async (executor: ImportedFrom, groupId: string, secrets: SecretSource) =>
  executor.type === "mcp"
    ? (await loadMcp()).listMcpTools(executor, secrets, IMPORT_TIMEOUT_MS)
    : (await loadStdio()).listStdioTools(groupId, executor, secrets, STDIO_IMPORT_TIMEOUT_MS);

/**
 * The server's tools (every page of tools/list) as toolgate tool definitions, named with the executor's prefix. A stdio
 * server's process is the group's (`groupId`), started for the import and kept warm for its calls.
 */
export async function importTools(executor: ImportedFrom, secrets: SecretSource, groupId = ""): Promise<ToolDefinition[]> {
  let listed;
  try {
    listed = await listTools(executor, groupId, secrets);
  } catch (error) {
    throw error instanceof ToolgateError && error.status >= 500 ? importFailed("tools", executor, groupId, error) : error;
  }
  if (listed.length === 0) throw invalidImport(executor, groupId, [{ path: "tools", message: "the server lists no tools" }]);
  if (listed.length > MAX_TOOLS_PER_GROUP)
    throw invalidImport(executor, groupId, [{ path: "tools", message: `the server lists ${listed.length} tools; a group can have at most ${MAX_TOOLS_PER_GROUP}` }]);
  const badNames = invalidNames(executor, listed);
  if (badNames.length) throw invalidImport(executor, groupId, badNames);
  return listed.map((tool) => toToolDefinition(executor, tool));
}

/** The group to register: given tools as they are; without tools, an MCP server's imported from it (a stdio server's as the group `groupId`'s). */
export async function withTools(input: GroupInput, secrets: SecretSource, groupId = ""): Promise<GroupDefinition> {
  refuseStdio(input.executor);
  const executor = input.executor;
  if (input.tools !== undefined || (executor?.type !== "mcp" && executor?.type !== "stdio")) return parseOr(GroupDefinition, input, GROUP_ERRORS, "invalid_group_def", "The group definition");
  if (executor.type === "mcp") refuseLiteralSecrets(executor.headers);
  const [tools, offered] = await Promise.all([importTools(executor, secrets, groupId), importOffers(executor, secrets, groupId)]);
  return parseOr(GroupDefinition, { ...input, tools, ...offered }, GROUP_ERRORS, "invalid_group_def", `The tools imported from ${serverOf(executor, groupId)}`);
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
  if (executor?.type !== "mcp" && executor?.type !== "stdio")
    throw groupError("not_an_mcp_group", `The group "${groupId}" is not served by an MCP server ({ "type": "mcp" } or { "type": "stdio" } executor), so it has no tools to import.`, { groupId });
  refuseStdio(executor);
  const [tools, offered] = await Promise.all([importTools(executor, secrets, groupId), importOffers(executor, secrets, groupId)]);
  const outcome = await registerGroup(
    db,
    catalog,
    groupId,
    { description: group.description, executor, tools, ...offered, ...(group.offerPolicy ? { offerPolicy: group.offerPolicy } : {}) },
    { source: group.source, ...(group.module ? { module: group.module } : {}), now, unchangedSince: group.updatedAt },
  );
  const before = new Set(group.tools.map((tool) => tool.function.name));
  const after = new Set(tools.map((tool) => tool.function.name));
  return { ...outcome, added: [...after].filter((name) => !before.has(name)), removed: [...before].filter((name) => !after.has(name)) };
}
