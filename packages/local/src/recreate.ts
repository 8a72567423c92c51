import type { Toolgate } from "@toolgate/core/toolgate";
import { ensureTable } from "./local-table";

/** An in-memory DynamoDB Local comes back empty after a restart: creates the table again and registers the built-ins anew. */
export async function recreateTable(toolgate: Toolgate, tableName: string): Promise<void> {
  await ensureTable(toolgate.db.client, tableName);
  await toolgate.reset();
}
