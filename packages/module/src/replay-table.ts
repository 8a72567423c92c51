// The DynamoDB table of dynamoReplayStore, apart from the store so that the SST component names it without loading it.

/** Where dynamoReplayStore finds its table when it is given none: ToolgateModule's `replayTable` sets it. */
export const REPLAY_TABLE_ENV = "TOOLGATE_REPLAY_TABLE";

/** The table a DynamoDB replay store needs: a string partition key `jti`, and `expiresAt` (seconds since 1970) as its TTL attribute. */
export const REPLAY_TABLE = { hashKey: "jti", ttl: "expiresAt" } as const;
