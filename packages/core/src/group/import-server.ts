import type { ToolgateError } from "../error";
import type { McpExecutor, StdioExecutor } from "../executor/schema";
import { groupError } from "./errors";

/** How long listing an MCP server's tools (or what else it offers) may take: a registration answers within API Gateway's 30 s. */
export const IMPORT_TIMEOUT_MS = 15_000;

/**
 * A stdio server's, whose first start may install it (`npx -y …` fetching a package): it only runs under `npm start`,
 * which no gateway's limit bounds.
 */
export const STDIO_IMPORT_TIMEOUT_MS = 120_000;

/** An executor whose tools (and offers) are imported from its MCP server: one over Streamable HTTP, or a stdio server's process. */
export type ImportedFrom = McpExecutor | StdioExecutor;

export const importTimeoutOf = (executor: ImportedFrom) => (executor.type === "mcp" ? IMPORT_TIMEOUT_MS : STDIO_IMPORT_TIMEOUT_MS);

export const serverOf = (executor: ImportedFrom, groupId: string) =>
  executor.type === "mcp" ? `the MCP server at ${new URL(executor.url).origin}` : `the stdio MCP server of the group "${groupId}"`;

/** A server that could not list `what` (its tools, or its resources and prompts): nothing is registered. */
export const importFailed = (what: string, executor: ImportedFrom, groupId: string, error: ToolgateError) =>
  groupError(
    "mcp_import_failed",
    `The ${what} of ${serverOf(executor, groupId)} could not be imported: ${
      error.code === "tool_timeout" ? `it did not list them within ${importTimeoutOf(executor)} ms.` : error.message
    } Nothing was registered.`,
    { ...(typeof error.details.secret === "string" ? { secret: error.details.secret } : {}), recoverable: true },
  );
