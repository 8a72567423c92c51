import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import { Keys } from "./keys";

/** One cheap read that answers only when the table is there and the store is serving. */
export async function probeStore(db: Db, timeoutMs: number): Promise<boolean> {
  try {
    await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.catalogVersion() }), { abortSignal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}
