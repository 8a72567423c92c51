import { expect, test } from "vitest";
import fc from "fast-check";
import { callFingerprint, canonicalJson } from "../tool/canonical";

test("canonicalJson - sorts object keys at every depth", () => {
  expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
});

test("canonicalJson - keeps array order, which is meaningful", () => {
  expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
});

test("canonicalJson - drops undefined properties like JSON.stringify does", () => {
  expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  expect(canonicalJson(undefined)).toBe("null");
});

test("canonicalJson - is JSON that parses back to the same value (property)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    }),
  );
});

const shuffleKeys = (value: unknown, shift: number): unknown => {
  if (Array.isArray(value)) return value.map((item, i) => shuffleKeys(item, shift + i));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const rotated = entries.map((_, i) => entries[(i + shift) % entries.length]!);
  return Object.fromEntries(rotated.reverse().map(([key, inner]) => [key, shuffleKeys(inner, shift + 1)]));
};

test("callFingerprint - does not depend on key order (property)", () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(20), (args, shift) => {
      expect(callFingerprint("t", shuffleKeys(args, shift))).toBe(callFingerprint("t", args));
    }),
  );
});

test("callFingerprint - differs for different arguments or a different tool", () => {
  expect(callFingerprint("t", { a: 1 })).not.toBe(callFingerprint("t", { a: 2 }));
  expect(callFingerprint("t", { a: 1 })).not.toBe(callFingerprint("u", { a: 1 }));
  expect(callFingerprint("t", { a: "1" })).not.toBe(callFingerprint("t", { a: 1 }));
  expect(callFingerprint("ab", {})).not.toBe(callFingerprint("a", { b: {} }));
});

test("callFingerprint - is a short url-safe string", () => {
  expect(callFingerprint("t", { a: 1 })).toMatch(/^[A-Za-z0-9_-]{22}$/);
});
