import { monotonicFactory } from "ulid";

export type IdPrefix = "rol" | "agt" | "call" | "msg" | "art";

/** One factory per process: ids made in the same millisecond still sort in the order they were made. */
const nextUlid = monotonicFactory();

export const createId = (prefix: IdPrefix) => `${prefix}_${nextUlid()}`;
