import { ConditionalCheckFailedException, TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { expect, test } from "vitest";
import { attempt } from "./write";

const metadata = { $metadata: {} };
const cancelled = (...reasons: Array<{ Code: string; Item?: Record<string, { S: string }> }>) =>
  new TransactionCanceledException({ message: "cancelled", ...metadata, CancellationReasons: reasons });

test("attempt - a write that applies is ok", async () => {
  expect(await attempt(async () => {})).toEqual({ kind: "ok" });
});

test("attempt - a transaction cancelled because another held an item is contention, not a failed condition", async () => {
  expect(await attempt(() => Promise.reject(cancelled({ Code: "None" }, { Code: "TransactionConflict" })))).toEqual({ kind: "contention" });
  expect(await attempt(() => Promise.reject(new TransactionConflictException({ message: "conflict", ...metadata })))).toEqual({ kind: "contention" });
});

test("attempt - a failed condition says which items failed and hands back each item as it is now", async () => {
  const outcome = await attempt(() => Promise.reject(cancelled({ Code: "None" }, { Code: "ConditionalCheckFailed", Item: { pk: { S: "ROLE#r" }, name: { S: "now" } } })));
  expect(outcome).toEqual({ kind: "refused", failed: [false, true], current: [undefined, { pk: "ROLE#r", name: "now" }] });
  const single = await attempt(() => Promise.reject(new ConditionalCheckFailedException({ message: "no", ...metadata, Item: { v: { S: "2" } } })));
  expect(single).toEqual({ kind: "refused", failed: [true], current: [{ v: "2" }] });
});

test("attempt - anything else is not a storage answer and is thrown", async () => {
  await expect(attempt(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  await expect(attempt(() => Promise.reject(cancelled({ Code: "ValidationError" })))).rejects.toBeInstanceOf(TransactionCanceledException);
});
