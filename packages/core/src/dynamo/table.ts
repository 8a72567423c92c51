// Shared by infra/storage.ts and the local runner: keep this file free of imports.
export const TABLE = {
  fields: {
    pk: "string",
    sk: "string",
    gsi1pk: "string",
    gsi1sk: "string",
    gsi2pk: "string",
    gsi2sk: "string",
    gsi3pk: "string",
    gsi3sk: "string",
  },
  primaryIndex: { hashKey: "pk", rangeKey: "sk" },
  globalIndexes: {
    gsi1: { hashKey: "gsi1pk", rangeKey: "gsi1sk" },
    gsi2: { hashKey: "gsi2pk", rangeKey: "gsi2sk" },
    /**
     * Agents by the hour they last had a call admitted, keys only: written only when that hour changes, so a call pays
     * no index write, and cleanup finds whose calls to look at.
     */
    gsi3: { hashKey: "gsi3pk", rangeKey: "gsi3sk", projection: "keys-only" },
  },
  ttl: "expiresAt",
  /** Every committed write, before and after: call.settled is published from it, off the guarded call's path. */
  stream: "new-and-old-images",
} as const;
