import { deleteExpired, settleLapsedCalls } from "./dynamo/cleanup";
import type { Db } from "./dynamo/client";

export type CleanupReport = { settled: number; deleted: number };

/** Settles calls stuck past their deadline (timed out, expired), then deletes what has expired (DynamoDB Local never applies TTL; on AWS this is a backstop). */
export async function cleanup(db: Db, now = new Date()): Promise<CleanupReport> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const settled = await settleLapsedCalls(db, nowSeconds, now.toISOString());
  const deleted = await deleteExpired(db, nowSeconds);
  return { settled, deleted };
}
