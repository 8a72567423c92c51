// Shared by infra/storage.ts and the local runner: keep this file free of imports.
export const TABLE = {
  fields: {
    pk: "string",
    sk: "string",
    gsi1pk: "string",
    gsi1sk: "string",
    gsi2pk: "string",
    gsi2sk: "string",
  },
  primaryIndex: { hashKey: "pk", rangeKey: "sk" },
  globalIndexes: {
    gsi1: { hashKey: "gsi1pk", rangeKey: "gsi1sk" },
    gsi2: { hashKey: "gsi2pk", rangeKey: "gsi2sk" },
  },
  ttl: "expiresAt",
  /** Every committed write, before and after: call.settled is published from it, off the guarded call's path. */
  stream: "new-and-old-images",
} as const;
