import { ConditionalCheckFailedException, TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { WriteConflictError } from "../error";
import { AGAIN, untilSettled } from "../contention";
import type { Db } from "./client";

/** Runs a write, turning DynamoDB's condition failures and conflicts into WriteConflictError (with per-item reasons for transactions). */
export async function conditional<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new WriteConflictError(["ConditionalCheckFailed"], { cause: error });
    if (error instanceof TransactionConflictException) throw new WriteConflictError(["TransactionConflict"], { cause: error });
    if (error instanceof TransactionCanceledException) {
      const reasons = (error.CancellationReasons ?? []).map((reason) =>
        reason.Code && reason.Code !== "None" ? reason.Code : undefined,
      );
      if (reasons.some((code) => code === "ConditionalCheckFailed" || code === "TransactionConflict")) throw new WriteConflictError(reasons, { cause: error });
    }
    throw error;
  }
}

/**
 * Runs a conditional write until it is decided: true when it applied, false when its condition did not hold.
 * Losing a race to another transaction is not a "no": the write is tried again (503 busy past the deadline).
 */
export function whenCondition(db: Db, write: () => Promise<unknown>): Promise<boolean> {
  return untilSettled(db.contentionDeadlineMs, async () => {
    try {
      await conditional(write);
      return true;
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      return error.contended ? AGAIN : false;
    }
  });
}
