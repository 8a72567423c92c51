import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { StoreUnavailableError } from "../error";
import { Documents } from "./documents";
import { isStoreFault } from "./faults";

export type Db = {
  doc: Documents;
  client: DynamoDBClient;
  table: string;
  /** How long a write that keeps losing races is retried before the caller gets 503 busy. */
  contentionDeadlineMs: number;
  /** Whether the store deletes expired items itself (DynamoDB's TTL); DynamoDB Local does not, so cleanup sweeps them. */
  expiresByTtl: boolean;
};

/** An AWS access key pair, in the shape the SDK's `credentials` take. */
export type AccessKeyPair = { accessKeyId: string; secretAccessKey: string };

/** What a local endpoint is signed with when no key is set: DynamoDB Local sharing one database takes it, `npm start`'s endpoints refuse it. */
export const PLACEHOLDER_KEY: AccessKeyPair = { accessKeyId: "local", secretAccessKey: "local" };

export type DbOptions = {
  table: string;
  endpoint?: string;
  region?: string;
  /**
   * With `endpoint` (DynamoDB Local): the key the data is kept under, as DynamoDB Local keeps a database per access
   * key id (`npm start` runs it so); a placeholder key when absent, for a DynamoDB Local that shares one database.
   */
  credentials?: AccessKeyPair;
  /** Each DynamoDB request is abandoned after this long without an answer (then retried, up to maxAttempts). */
  requestTimeoutMs?: number;
  maxAttempts?: number;
  contentionDeadlineMs?: number;
  expiresByTtl?: boolean;
  /** Called once per DynamoDB request actually sent (a round trip), with the operation name. */
  onRoundTrip?: (operation: string) => void;
  /**
   * Adds middleware of the caller's own (a recorder) to the client. The client resolves each command's middleware
   * once, at its first request, so middleware added to `db.client` after that is not seen: it is added here.
   */
  instrument?: (client: DynamoDBClient) => void;
};

export const DEFAULT_STORE_SETTINGS = { requestTimeoutMs: 2_000, maxAttempts: 3, contentionDeadlineMs: 5_000 };

export function createDb(options: DbOptions): Db {
  const local = options.endpoint !== undefined;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_STORE_SETTINGS.requestTimeoutMs;
  const client = new DynamoDBClient({
    ...(local
      ? {
          endpoint: options.endpoint,
          region: options.region ?? "us-east-1",
          credentials: options.credentials ?? PLACEHOLDER_KEY,
        }
      : options.region
        ? { region: options.region }
        : {}),
    maxAttempts: options.maxAttempts ?? DEFAULT_STORE_SETTINGS.maxAttempts,
    requestHandler: { requestTimeout: requestTimeoutMs, connectionTimeout: requestTimeoutMs, throwOnRequestTimeout: true },
    // Each command's middleware is resolved once, not for every request (so everything below is added before the first).
    cacheMiddleware: true,
  });
  // Work every command would do for nothing: the logger runs its sensitive-data filters over each input and output
  // with no logger configured, and the user agent is rebuilt for each request.
  client.middlewareStack.remove("loggerMiddleware");
  client.middlewareStack.remove("getUserAgentMiddleware");
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw isStoreFault(error) ? new StoreUnavailableError({ cause: error }) : error;
      }
    },
    { step: "initialize", name: "toolgateStoreFaults", priority: "high" },
  );
  if (options.onRoundTrip) {
    const onRoundTrip = options.onRoundTrip;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        onRoundTrip(String(context.commandName ?? "unknown").replace(/Command$/, ""));
        return next(args);
      },
      { step: "finalizeRequest", name: "toolgateRoundTripCounter" },
    );
  }
  options.instrument?.(client);
  return {
    doc: new Documents(client),
    client,
    table: options.table,
    contentionDeadlineMs: options.contentionDeadlineMs ?? DEFAULT_STORE_SETTINGS.contentionDeadlineMs,
    expiresByTtl: options.expiresByTtl ?? !local,
  };
}
