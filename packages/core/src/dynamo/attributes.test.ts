import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import fc from "fast-check";
import { expect, test } from "vitest";
import { fromAttribute, fromAttributes, toAttribute, toAttributes } from "./attributes";

const roundTrip = (value: unknown) => fromAttribute(toAttribute(value)!);

/** An attribute as it travels as JSON (a Lambda stream event's images): binary as base64 text. */
const onTheWire = (attribute: AttributeValue): AttributeValue =>
  JSON.parse(
    JSON.stringify(attribute, function (this: Record<string, unknown>, key, value) {
      const original = this[key];
      return original instanceof Uint8Array ? Buffer.from(original).toString("base64") : value;
    }),
  );

const SDK = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
const leavesAndKeys = (value: unknown): unknown[] =>
  value !== null && typeof value === "object"
    ? Object.entries(value).flatMap(([key, inner]) => [...(Array.isArray(value) ? [] : [key]), ...leavesAndKeys(inner)])
    : [value];

const dynamoNumber = (n: number) => n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) < 1e126);

/** What DynamoDB takes from the SDK's document client: numbers it holds, no empty key (nor "__proto__", which the SDK loses). */
const sdkStores = (value: unknown) => {
  const refused = (part: unknown) => part === "" || part === "__proto__" || (typeof part === "number" && !dynamoNumber(part));
  if (leavesAndKeys(value).some(refused)) return false;
  try {
    marshall({ value }, SDK);
    return true;
  } catch {
    return false;
  }
};

test("toAttribute - any JSON value reads back as the same JSON, from the SDK's bytes and from a stream event's base64 alike", () => {
  fc.assert(
    fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
      expect(JSON.stringify(roundTrip(value))).toBe(JSON.stringify(value));
      expect(JSON.stringify(fromAttribute(onTheWire(toAttribute(value)!)))).toBe(JSON.stringify(value));
    }),
    { numRuns: 500 },
  );
});

test("toAttribute - a value the SDK's document client stores is stored as it stores it, and what it stored reads as it reads it", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      fc.pre(sdkStores(value));
      expect(toAttributes({ value })).toEqual(marshall({ value }, SDK));
      expect(fromAttributes(marshall({ value }, SDK))).toEqual(unmarshall(marshall({ value }, SDK)));
    }),
    { numRuns: 500 },
  );
});

test.each([
  ["2^60", 2 ** 60, { N: "1152921504606847000" }],
  ["the largest double DynamoDB holds", 9.999999999999998e125, { N: "9.999999999999998e+125" }],
  ["the smallest magnitude DynamoDB holds", -1e-130, { N: "-1e-130" }],
  ["-0 (JSON writes 0)", -0, { N: "0" }],
])("toAttribute - %s is a DynamoDB number", (_name, value, attribute) => {
  expect(toAttribute(value)).toEqual(attribute);
  expect(roundTrip(value)).toBe(value === 0 ? 0 : value);
});

test.each([
  ["1e126", 1e126],
  ["1e308", 1e308],
  ["-1.7976931348623157e308", -Number.MAX_VALUE],
  ["1e-131", 1e-131],
  ["5e-324", Number.MIN_VALUE],
])("toAttribute - %s, beyond DynamoDB's numbers, is kept as its JSON text", (_name, value) => {
  expect(toAttribute(value)).toEqual({ B: Buffer.from(JSON.stringify(value)) });
  expect(roundTrip(value)).toBe(value);
});

test("toAttribute - an object with a key a map cannot carry is kept as its JSON text; the rest of the value stays a map", () => {
  const value = { keep: { n: 1 }, empty: { "": 1, b: [2] }, proto: JSON.parse('{"__proto__": {"polluted": true}}') };
  const attribute = toAttribute(value)!;
  expect(attribute.M?.keep).toEqual({ M: { n: { N: "1" } } });
  expect(attribute.M?.empty).toEqual({ B: Buffer.from('{"":1,"b":[2]}') });
  const read = roundTrip(value) as typeof value;
  expect(JSON.stringify(read)).toBe(JSON.stringify(value));
  expect(Object.keys(read.proto)).toEqual(["__proto__"]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test("toAttribute - a number JSON cannot write is stored as JSON.stringify writes it, null; undefined is left out", () => {
  expect(toAttributes({ a: Number.POSITIVE_INFINITY, b: Number.NaN, c: undefined, d: [1, undefined] })).toEqual({ a: { NULL: true }, b: { NULL: true }, d: { L: [{ N: "1" }] } });
});

test("toAttribute - what is not a JSON value is refused: toolgate stores no binary, set or class instance", () => {
  for (const value of [new Uint8Array([1]), new Set(["a"]), new Date(0), 1n]) expect(() => toAttribute(value)).toThrow("is not a JSON value");
});
