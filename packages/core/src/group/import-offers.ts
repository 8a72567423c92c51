import { ToolgateError } from "../error";
import { loadMcpOffers } from "../executor/load-mcp";
import type { Executor } from "../executor/schema";
import type { SecretSource } from "../executor/secrets";
import { offersAnything, offersFrom } from "../offer/imported";
import type { Offers } from "../offer/schema";
import { summarise } from "../validation";
import { groupError } from "./errors";

/** How long listing what a server offers may take, as for its tools. */
const IMPORT_TIMEOUT_MS = 15_000;

/**
 * What an MCP server offers besides tools (resources, templates, prompts: those its capabilities declare, every page),
 * imported with its tools at registration and refresh, so that listing them is a read of the catalog. Undefined when it
 * offers nothing, or its executor is not one that speaks MCP over HTTP.
 */
export async function importOffers(executor: Executor | undefined, secrets: SecretSource): Promise<{ offers?: Offers }> {
  if (executor?.type !== "mcp") return {};
  const origin = new URL(executor.url).origin;
  let listed;
  try {
    listed = await (await loadMcpOffers()).listMcpOffers(executor, secrets, IMPORT_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof ToolgateError) || error.status < 500) throw error;
    throw groupError(
      "mcp_import_failed",
      `The resources and prompts of the MCP server at ${origin} could not be imported: ${error.code === "tool_timeout" ? `it did not list them within ${IMPORT_TIMEOUT_MS} ms.` : error.message} Nothing was registered.`,
      { ...(typeof error.details.secret === "string" ? { secret: error.details.secret } : {}), recoverable: true },
    );
  }
  const read = offersFrom(executor.toolPrefix, listed);
  if ("issues" in read)
    throw groupError("invalid_group_def", `The resources and prompts of the MCP server at ${origin} cannot be registered: ${summarise(read.issues)}.`, { details: read.issues });
  return offersAnything(read.offers) ? { offers: read.offers } : {};
}
