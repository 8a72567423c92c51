// What the functions serve that is built from source before the service starts, is tested or is bundled: the
// console's browser script and the API document. Both are generated beside their sources and not in git.
import { fileURLToPath } from "node:url";
import { buildConsoleClient } from "./console/build";

/** The console's script first: the API document is read from the apps, and the roles app serves that script. */
export async function buildServed(): Promise<string[]> {
  const script = await buildConsoleClient();
  const { buildApiDocument } = await import("./openapi/build");
  return [script, await buildApiDocument()];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const written of await buildServed()) console.log(`built ${written}`);
}
