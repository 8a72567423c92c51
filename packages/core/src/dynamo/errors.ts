import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { WriteConflictError } from "../error";

/** Runs a write, turning DynamoDB's condition failures into WriteConflictError (with per-item reasons for transactions). */
export async function conditional<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new WriteConflictError(["ConditionalCheckFailed"], { cause: error });
    if (error instanceof TransactionCanceledException) {
      const reasons = (error.CancellationReasons ?? []).map((reason) =>
        reason.Code && reason.Code !== "None" ? reason.Code : undefined,
      );
      if (reasons.some((code) => code === "ConditionalCheckFailed" || code === "TransactionConflict")) throw new WriteConflictError(reasons, { cause: error });
    }
    throw error;
  }
}

/** Runs a conditional write; true when it applied, false when its condition did not hold. */
export async function whenCondition(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await conditional(write);
    return true;
  } catch (error) {
    if (error instanceof WriteConflictError) return false;
    throw error;
  }
}
