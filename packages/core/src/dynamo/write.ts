import { ConditionalCheckFailedException, TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { fromAttributes } from "./attributes";
import type { Attributes } from "./attributes";
import type { Item } from "./query";

/**
 * How a conditional write (or a transaction of them) ended, before any domain meaning is given to it:
 * applied; refused, with which positions failed their condition and each item as it is now (asked for with
 * ReturnValuesOnConditionCheckFailure, so nobody reads it again); or lost a race to another transaction.
 */
export type WriteOutcome =
  | { kind: "ok" }
  | { kind: "refused"; failed: boolean[]; current: Array<Item | undefined> }
  | { kind: "contention" };

const asItem = (item: Attributes | undefined): Item | undefined => (item ? fromAttributes(item) : undefined);

export async function attempt(write: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await write();
    return { kind: "ok" };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { kind: "refused", failed: [true], current: [asItem(error.Item)] };
    if (error instanceof TransactionConflictException) return { kind: "contention" };
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      if (reasons.some((reason) => reason.Code === "TransactionConflict")) return { kind: "contention" };
      if (reasons.some((reason) => reason.Code === "ConditionalCheckFailed"))
        return {
          kind: "refused",
          failed: reasons.map((reason) => reason.Code === "ConditionalCheckFailed"),
          current: reasons.map((reason) => asItem(reason.Item)),
        };
    }
    throw error;
  }
}
