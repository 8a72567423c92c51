import { decodeTime, isValid } from "ulid";
import { expect, test } from "vitest";
import { createId, pooledRandom } from "./id";

test("createId - prefixed ULIDs, unique and in the order they were made, with the time they were made", () => {
  const before = Date.now();
  const ids = Array.from({ length: 5_000 }, () => createId("call"));
  const after = Date.now();
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
  expect(ids.filter((id) => !/^call_[0-9A-HJKMNP-TV-Z]{26}$/.test(id) || !isValid(id.slice(5)))).toEqual([]);
  expect(decodeTime(ids[0]!.slice(5))).toBeGreaterThanOrEqual(before);
  expect(decodeTime(ids.at(-1)!.slice(5))).toBeLessThanOrEqual(after);
});

test("pooledRandom - fractions in [0, 1) that pick each of ulid's 32 characters about equally often", () => {
  const counts = new Array<number>(32).fill(0);
  const draws = 64_000;
  const values = Array.from({ length: draws }, pooledRandom);
  expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...values)).toBeLessThan(1);
  for (const value of values) counts[Math.floor(value * 32)]!++;
  for (const count of counts) expect(Math.abs(count - draws / 32)).toBeLessThan(draws / 32 / 5);
});
