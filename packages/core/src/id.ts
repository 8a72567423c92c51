import { ulid } from "ulid";

export type IdPrefix = "rol" | "agt" | "call" | "msg" | "art";

export const createId = (prefix: IdPrefix) => `${prefix}_${ulid()}`;
