import { ToolgateError } from "../error";
import { loadMcpOffers } from "../executor/load-mcp";
import { loadStdio } from "../executor/stdio-load";
import type { Executor } from "../executor/schema";
import type { SecretSource } from "../executor/secrets";
import { offersAnything, offersFrom } from "../offer/imported";
import type { Offers } from "../offer/schema";
import { summarise } from "../validation";
import { groupError } from "./errors";
import { importFailed, importTimeoutOf, serverOf } from "./import-server";

/**
 * What an MCP server offers besides tools (resources, templates, prompts: those its capabilities declare, every page),
 * imported with its tools at registration and refresh, so that listing them is a read of the catalog. Undefined when it
 * offers nothing, or its executor is not one that speaks MCP (over HTTP, or a stdio server's process).
 */
export async function importOffers(executor: Executor | undefined, secrets: SecretSource, groupId = ""): Promise<{ offers?: Offers }> {
  if (executor?.type !== "mcp" && executor?.type !== "stdio") return {};
  const server = executor.type === "mcp" ? executor : (await loadStdio()).stdioUpstream(groupId, executor);
  let listed;
  try {
    listed = await (await loadMcpOffers()).listMcpOffers(server, secrets, importTimeoutOf(executor));
  } catch (error) {
    throw error instanceof ToolgateError && error.status >= 500 ? importFailed("resources and prompts", executor, groupId, error) : error;
  }
  const read = offersFrom(executor.toolPrefix, listed);
  if ("issues" in read)
    throw groupError("invalid_group_def", `The resources and prompts of ${serverOf(executor, groupId)} cannot be registered: ${summarise(read.issues)}.`, { details: read.issues });
  return offersAnything(read.offers) ? { offers: read.offers } : {};
}
