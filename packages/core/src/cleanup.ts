import { deleteExpired, timeOutStuckCalls } from "./dynamo/cleanup";
import type { Db } from "./dynamo/client";

export type CleanupReport = { timedOut: number; deleted: number };

/** Settles stuck calls, then deletes what has expired (DynamoDB Local never applies TTL; on AWS this is a backstop). */
export async function cleanup(db: Db, now = new Date()): Promise<CleanupReport> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const timedOut = await timeOutStuckCalls(db, nowSeconds, now.toISOString());
  const deleted = await deleteExpired(db, nowSeconds);
  return { timedOut, deleted };
}
