/**
 * The built-in groups' ids, in the order they are listed (each group is in its own file of this area, and groups.ts
 * checks it has one group per id). The catalog reads these alone: the groups' tools import the domain.
 */
export const RESERVED_GROUP_IDS = ["org_management", "artifact", "workspace", "command", "network", "context", "console"] as const;

export type ReservedGroupId = (typeof RESERVED_GROUP_IDS)[number];
