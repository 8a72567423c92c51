import { access, rename } from "node:fs/promises";
import { join } from "node:path";
import { LOCAL_REGION } from "./dynamo-process";

/** The one database DynamoDB Local keeps with -sharedDb, as toolgate ran it before its data had a key of its own. */
export const SHARED_DATABASE = "shared-local-instance.db";

/** Where DynamoDB Local (without -sharedDb) keeps the tables of an access key id in a region. */
export const databaseFile = (accessKeyId: string, region = LOCAL_REGION) => `${accessKeyId}_${region}.db`;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * A data dir written before each key had its own database holds everything in the shared one: it becomes the
 * database of toolgate's key, so nothing stored is lost. When both are there (an older toolgate ran on the data
 * since), neither is touched and the log says where the older one is.
 */
export async function adoptSharedDatabase(dir: string, accessKeyId: string, log: (line: string) => void): Promise<void> {
  const shared = join(dir, SHARED_DATABASE);
  if (!(await exists(shared))) return;
  const own = join(dir, databaseFile(accessKeyId));
  if (await exists(own)) {
    log(`dynamodb-local: ${shared} was left as it is: toolgate's data is in ${own}; the other file holds what an older toolgate stored.`);
    return;
  }
  await rename(shared, own);
  log(`dynamodb-local: moved the shared database to ${own}, where DynamoDB Local keeps the data of toolgate's access key`);
}
