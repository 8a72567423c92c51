import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { expect, test } from "vitest";
import { getItems, itemAt } from "../../packages/core/src/dynamo/batch";
import { testToolgate } from "../support/toolgate";

test("getItems - more keys than one BatchGetItem takes (100) are read in several, every stored item found once", async () => {
  const operations: string[] = [];
  const { db } = await testToolgate({ onRoundTrip: (operation) => operations.push(operation) });
  const keys = Array.from({ length: 250 }, (_, n) => ({ pk: `BATCH#${n}`, sk: "ITEM" }));
  const stored = keys.filter((_, n) => n % 3 !== 0);
  for (const key of stored) await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...key, n: Number(key.pk.slice(6)) } }));

  operations.length = 0;
  const found = await getItems(db, keys);
  expect(operations.filter((operation) => operation === "BatchGetItem").length).toBeGreaterThanOrEqual(3);
  expect(found.size).toBe(stored.length);
  for (const key of keys) expect(itemAt(found, key)?.n).toBe(stored.includes(key) ? Number(key.pk.slice(6)) : undefined);
});
