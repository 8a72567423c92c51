import { ToolgateError } from "../error";
import { loadMcpOffers } from "../executor/load-mcp";
import { loadStdio } from "../executor/stdio-load";
import type { Executor } from "../executor/schema";
import type { SecretSource } from "../executor/secrets";
import { offersAnything, offersFrom } from "../offer/imported";
import type { Offers } from "../offer/schema";
import { summarise } from "../validation";
import { groupError } from "./errors";

import { IMPORT_TIMEOUT_MS, STDIO_IMPORT_TIMEOUT_MS } from "./import-timeouts";

/**
 * What an MCP server offers besides tools (resources, templates, prompts: those its capabilities declare, every page),
 * imported with its tools at registration and refresh, so that listing them is a read of the catalog. Undefined when it
 * offers nothing, or its executor is not one that speaks MCP (over HTTP, or a stdio server's process).
 */
export async function importOffers(executor: Executor | undefined, secrets: SecretSource, groupId = ""): Promise<{ offers?: Offers }> {
  if (executor?.type !== "mcp" && executor?.type !== "stdio") return {};
  const origin = executor.type === "mcp" ? `the MCP server at ${new URL(executor.url).origin}` : `the stdio MCP server of the group "${groupId}"`;
  const timeoutMs = executor.type === "mcp" ? IMPORT_TIMEOUT_MS : STDIO_IMPORT_TIMEOUT_MS;
  const server = executor.type === "mcp" ? executor : (await loadStdio()).stdioUpstream(groupId, executor);
  let listed;
  try {
    listed = await (await loadMcpOffers()).listMcpOffers(server, secrets, timeoutMs);
  } catch (error) {
    if (!(error instanceof ToolgateError) || error.status < 500) throw error;
    throw groupError(
      "mcp_import_failed",
      `The resources and prompts of ${origin} could not be imported: ${error.code === "tool_timeout" ? `it did not list them within ${timeoutMs} ms.` : error.message} Nothing was registered.`,
      { ...(typeof error.details.secret === "string" ? { secret: error.details.secret } : {}), recoverable: true },
    );
  }
  const read = offersFrom(executor.toolPrefix, listed);
  if ("issues" in read)
    throw groupError("invalid_group_def", `The resources and prompts of ${origin} cannot be registered: ${summarise(read.issues)}.`, { details: read.issues });
  return offersAnything(read.offers) ? { offers: read.offers } : {};
}
