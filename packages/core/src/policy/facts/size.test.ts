import { expect, test } from "vitest";
import { sizeFacts } from "./size";

test("sizeFacts - inputBytes is the UTF-8 length of the arguments as JSON", () => {
  const cases: Array<[unknown, number]> = [
    [{}, 2],
    [{ a: 1 }, 7],
    [{ path: "src/index.ts" }, '{"path":"src/index.ts"}'.length],
    [{ text: "é" }, '{"text":"é"}'.length + 1],
    [{ text: "日本" }, '{"text":""}'.length + 6],
    [{ text: "😀" }, '{"text":""}'.length + 4],
    [{ text: 'a"b\n' }, '{"text":"a\\"b\\n"}'.length],
    [[], 2],
    [null, 4],
    [undefined, 0],
  ];
  for (const [args, bytes] of cases) expect(sizeFacts(args).inputBytes, JSON.stringify(args)).toBe(bytes);
});

test("sizeFacts - largestStringBytes counts UTF-8 bytes, not characters", () => {
  const cases: Array<[string, number]> = [
    ["", 0],
    ["abc", 3],
    ["é", 2],
    ["日本語", 9],
    ["😀", 4],
    ["a😀é", 7],
  ];
  for (const [text, bytes] of cases) expect(sizeFacts({ text }).largestStringBytes, text).toBe(bytes);
});

test("sizeFacts - largestStringBytes finds the longest string at any depth, in arrays and objects", () => {
  const args = {
    short: "ab",
    list: ["abc", { deeper: [[["日本語日本語"]]] }],
    nested: { a: { b: { c: "abcdefg" } } },
  };
  expect(sizeFacts(args).largestStringBytes).toBe(18);
});

test("sizeFacts - object keys, numbers, booleans and null do not count as strings", () => {
  expect(sizeFacts({ ["a".repeat(100)]: 1, b: true, c: null, d: 12345678901234 }).largestStringBytes).toBe(0);
  expect(sizeFacts({ ["a".repeat(100)]: "xy" }).largestStringBytes).toBe(2);
});

test("sizeFacts - a top-level string or an empty value has a sensible size", () => {
  expect(sizeFacts("日本")).toEqual({ inputBytes: 8, largestStringBytes: 6 });
  expect(sizeFacts({})).toEqual({ inputBytes: 2, largestStringBytes: 0 });
});

test("sizeFacts - nesting far deeper than the 64 levels arguments allow and long arrays are walked", () => {
  let deep: unknown = "needle!";
  for (let depth = 0; depth < 1000; depth++) deep = depth % 2 === 0 ? [deep] : { next: deep };
  expect(sizeFacts({ deep }).largestStringBytes).toBe(7);
  const wide = Array.from({ length: 200_000 }, (_, index) => (index === 123_456 ? "longest" : "x"));
  expect(sizeFacts({ wide })).toEqual({ inputBytes: JSON.stringify({ wide }).length, largestStringBytes: 7 });
});
