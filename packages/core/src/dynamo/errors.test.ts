import { ConditionalCheckFailedException, TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { expect, test } from "vitest";
import { ToolgateError, WriteConflictError } from "../error";
import type { Db } from "./client";
import { conditional, whenCondition } from "./errors";

const metadata = { $metadata: {} };
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: "cancelled", ...metadata, CancellationReasons: codes.map((Code) => ({ Code })) });
const db = (contentionDeadlineMs: number) => ({ contentionDeadlineMs }) as Db;

async function caught(write: () => Promise<unknown>) {
  try {
    await conditional(write);
  } catch (error) {
    return error;
  }
  throw new Error("expected the write to fail");
}

test("conditional - a transaction cancelled because another held an item is contention, not a failed condition", async () => {
  const error = await caught(() => Promise.reject(cancelled("None", "TransactionConflict")));
  expect(error).toBeInstanceOf(WriteConflictError);
  expect((error as WriteConflictError).contended).toBe(true);
  expect((error as WriteConflictError).refused(1)).toBe(false);
});

test("conditional - a single write conflicting with a transaction is contention", async () => {
  const error = await caught(() => Promise.reject(new TransactionConflictException({ message: "conflict", ...metadata })));
  expect((error as WriteConflictError).contended).toBe(true);
});

test("conditional - a failed condition names the item that failed and is not contention", async () => {
  const error = (await caught(() => Promise.reject(cancelled("None", "ConditionalCheckFailed")))) as WriteConflictError;
  expect(error.contended).toBe(false);
  expect([error.refused(0), error.refused(1)]).toEqual([false, true]);
  const single = (await caught(() => Promise.reject(new ConditionalCheckFailedException({ message: "no", ...metadata })))) as WriteConflictError;
  expect(single.refused(0)).toBe(true);
});

test("whenCondition - a write that loses races is tried again until it applies; a failed condition is a plain no", async () => {
  let attempts = 0;
  const applied = await whenCondition(db(5_000), async () => {
    if (++attempts < 3) throw new TransactionConflictException({ message: "conflict", ...metadata });
  });
  expect([applied, attempts]).toEqual([true, 3]);
  expect(await whenCondition(db(5_000), () => Promise.reject(new ConditionalCheckFailedException({ message: "no", ...metadata })))).toBe(false);
});

test("whenCondition - past the contention deadline the caller gets 503 busy, never a silent no", async () => {
  const outcome = whenCondition(db(0), () => Promise.reject(new TransactionConflictException({ message: "conflict", ...metadata })));
  await expect(outcome).rejects.toBeInstanceOf(ToolgateError);
  await expect(outcome).rejects.toMatchObject({ status: 503, code: "busy" });
});
