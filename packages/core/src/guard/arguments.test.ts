import { beforeAll, expect, test } from "vitest";
import type { ToolDefinition } from "../tool/schema";
import { describeArgumentErrors, loadArgumentValidator, validateArguments } from "./arguments";

beforeAll(() => loadArgumentValidator());

const define = (parameters: Record<string, unknown>): ToolDefinition => ({
  type: "function",
  function: { name: "t", description: "A tool.", parameters },
});

const search = define({
  type: "object",
  properties: {
    query: { type: "string", minLength: 1 },
    limit: { type: "integer", minimum: 1, default: 10 },
    options: {
      type: "object",
      properties: { caseSensitive: { type: "boolean", default: false }, depth: { type: "integer" } },
    },
  },
  required: ["query"],
});

test("validateArguments - valid arguments come back with the schema's defaults applied", () => {
  expect(validateArguments(search, { query: "x" }, false)).toEqual({ valid: true, value: { query: "x", limit: 10 } });
  expect(validateArguments(search, { query: "x", limit: 3, options: {} }, false)).toEqual({
    valid: true,
    value: { query: "x", limit: 3, options: { caseSensitive: false } },
  });
});

test("validateArguments - does not mutate the caller's arguments", () => {
  const args = { query: "x", options: {} };
  validateArguments(search, args, false);
  expect(args).toEqual({ query: "x", options: {} });
});

test("validateArguments - a missing required property is reported at its path", () => {
  expect(validateArguments(search, {}, false)).toEqual({ valid: false, issues: [{ path: "query", message: "is required" }] });
});

test("validateArguments - a wrong type is reported at its dotted path, nested ones included", () => {
  const result = validateArguments(search, { query: "x", limit: "ten", options: { depth: 1.5 } }, false);
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues).toEqual(
    expect.arrayContaining([
      { path: "limit", message: expect.stringMatching(/integer/) },
      { path: "options.depth", message: expect.stringMatching(/integer/) },
    ]),
  );
  expect(result.issues).toHaveLength(2);
});

test("validateArguments - reports every problem at once", () => {
  const result = validateArguments(search, { query: "", limit: 0 }, false);
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues.map((issue) => issue.path).sort()).toEqual(["limit", "query"]);
});

test("validateArguments - without strict, unknown keys pass through", () => {
  expect(validateArguments(search, { query: "x", extra: 1 }, false)).toEqual({ valid: true, value: { query: "x", limit: 10, extra: 1 } });
});

test("validateArguments - strict refuses unknown keys, naming each one", () => {
  const result = validateArguments(search, { query: "x", extra: 1, other: true }, true);
  expect(result).toEqual({
    valid: false,
    issues: expect.arrayContaining([
      { path: "extra", message: "is not a parameter of this tool" },
      { path: "other", message: "is not a parameter of this tool" },
    ]),
  });
  expect(validateArguments(search, { query: "x" }, true)).toEqual({ valid: true, value: { query: "x", limit: 10 } });
});

test("validateArguments - strict and lenient validators of one definition do not leak into each other", () => {
  const definition = define({ type: "object", properties: { a: { type: "string" } } });
  expect(validateArguments(definition, { a: "x", b: 1 }, true).valid).toBe(false);
  expect(validateArguments(definition, { a: "x", b: 1 }, false).valid).toBe(true);
  expect(validateArguments(definition, { a: "x", b: 1 }, true).valid).toBe(false);
});

test("validateArguments - a schema's own additionalProperties: false refuses unknown keys without strict", () => {
  const closed = define({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false });
  expect(validateArguments(closed, { b: 1 }, false)).toEqual({ valid: false, issues: [{ path: "b", message: "is not a parameter of this tool" }] });
});

test("validateArguments - problems in array items carry the item index in the path", () => {
  const list = define({ type: "object", properties: { items: { type: "array", items: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } } } });
  const result = validateArguments(list, { items: [{ n: 1 }, {}, { n: "x" }] }, false);
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues).toEqual(
    expect.arrayContaining([
      { path: "items.1.n", message: "is required" },
      { path: "items.2.n", message: expect.any(String) },
    ]),
  );
});

test("validateArguments - formats are checked", () => {
  const withFormat = define({ type: "object", properties: { url: { type: "string", format: "uri" } } });
  expect(validateArguments(withFormat, { url: "https://example.com/a" }, false).valid).toBe(true);
  expect(validateArguments(withFormat, { url: "not a url" }, false)).toEqual({
    valid: false,
    issues: [{ path: "url", message: expect.stringMatching(/uri/i) }],
  });
});

test("validateArguments - types are not coerced", () => {
  expect(validateArguments(search, { query: "x", limit: "5" }, false).valid).toBe(false);
  expect(validateArguments(search, { query: 5 }, false).valid).toBe(false);
});

const JARGON = /must NOT|should|must be equal to|must match format|must match a schema|must have required property|boolean schema|\bstring,null\b/i;

const issuesOf = (parameters: Record<string, unknown>, args: Record<string, unknown>, strict = false) => {
  const result = validateArguments(define({ type: "object", ...parameters }), args, strict);
  if (result.valid) throw new Error("the arguments were accepted");
  return result.issues;
};

const property = (schema: Record<string, unknown>) => ({ properties: { v: schema } });

const keywordCases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
  ["type string", property({ type: "string" }), { v: 1 }, "must be a string, not a number"],
  ["type integer with a fraction", property({ type: "integer" }), { v: 1.5 }, "must be an integer"],
  ["type integer with a string", property({ type: "integer" }), { v: "ten" }, "must be an integer, not a string"],
  ["type object", property({ type: "object" }), { v: "{}" }, "must be an object, not a string"],
  ["type array", property({ type: "array" }), { v: {} }, "must be a list, not an object"],
  ["type boolean", property({ type: "boolean" }), { v: "true" }, "must be true or false, not a string"],
  ["a list of types", property({ type: ["string", "null"] }), { v: 1 }, "must be a string or null, not a number"],
  ["enum", property({ enum: ["low", "high", 3, null] }), { v: "mid" }, "must be one of: low, high, 3, null"],
  ["a long enum", property({ enum: Array.from({ length: 14 }, (_, i) => `v${i}`) }), { v: "x" }, "must be one of: v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, … (and 4 more)"],
  ["const", property({ const: "fixed" }), { v: "x" }, 'must be "fixed"'],
  ["minLength 1", property({ type: "string", minLength: 1 }), { v: "" }, "cannot be empty"],
  ["minLength", property({ type: "string", minLength: 3 }), { v: "ab" }, "must be at least 3 characters long"],
  ["maxLength", property({ type: "string", maxLength: 2 }), { v: "abc" }, "must be at most 2 characters long"],
  ["minimum", property({ type: "number", minimum: 1 }), { v: 0 }, "must be at least 1"],
  ["maximum", property({ type: "number", maximum: 9 }), { v: 10 }, "must be at most 9"],
  ["exclusiveMinimum", property({ type: "number", exclusiveMinimum: 0 }), { v: 0 }, "must be greater than 0"],
  ["exclusiveMaximum", property({ type: "number", exclusiveMaximum: 1 }), { v: 1 }, "must be less than 1"],
  ["multipleOf", property({ type: "number", multipleOf: 5 }), { v: 3 }, "must be a multiple of 5"],
  ["minItems", property({ type: "array", minItems: 2 }), { v: [1] }, "must have at least 2 items"],
  ["maxItems", property({ type: "array", maxItems: 1 }), { v: [1, 2] }, "must have at most 1 item"],
  ["uniqueItems", property({ type: "array", uniqueItems: true }), { v: [1, 1] }, "must list each item only once (items 0 and 1 are the same)"],
  ["minProperties", property({ type: "object", minProperties: 2 }), { v: { a: 1 } }, "must have at least 2 fields"],
  ["maxProperties", property({ type: "object", maxProperties: 1 }), { v: { a: 1, b: 2 } }, "must have at most 1 field"],
  ["pattern", property({ type: "string", pattern: "^[a-z]+$" }), { v: "A" }, "must match the pattern ^[a-z]+$"],
  ["format email", property({ type: "string", format: "email" }), { v: "x" }, "must be a valid email address"],
  ["format date-time", property({ type: "string", format: "date-time" }), { v: "x" }, "must be a date and time in ISO 8601 form, such as 2024-05-01T12:00:00Z"],
  ["format uri", property({ type: "string", format: "uri" }), { v: "x" }, "must be a valid URI, such as https://example.com/page"],
  ["anyOf of types", property({ anyOf: [{ type: "string" }, { type: "number" }] }), { v: true }, "must be a string or a number, not a boolean"],
  ["oneOf of shapes", property({ oneOf: [{ type: "object", required: ["a"] }, { type: "integer" }] }), { v: {} }, "does not match any of the allowed forms"],
  ["oneOf matching twice", property({ oneOf: [{ type: "integer" }, { type: "number" }] }), { v: 3 }, "matches more than one of the allowed forms; make it match exactly one"],
  ["not", property({ not: { type: "string" } }), { v: "x" }, "is a value this parameter does not accept"],
  ["a false schema", property(false as unknown as Record<string, unknown>), { v: 1 }, "is not accepted by this tool"],
  ["contains", property({ type: "array", contains: { type: "number" } }), { v: ["a"] }, "must contain at least 1 item matching the tool's schema"],
];

test.each(keywordCases)("validateArguments - %s is described in plain English", (_name, parameters, args, message) => {
  expect(issuesOf(parameters, args)).toEqual([{ path: "v", message }]);
  expect(message).not.toMatch(JARGON);
});

test("describeArgumentErrors - a keyword without its own wording gets a readable default naming the rule", () => {
  const error = { keyword: "x-unknown", instancePath: "/a/0", schemaPath: "#/properties/a/x-unknown", params: {}, message: "must NOT be x" };
  expect(describeArgumentErrors([error])).toEqual([{ path: "a.0", message: 'is not valid (it breaks the "x-unknown" rule of the tool\'s parameters)' }]);
});

test("validateArguments - a dependency names the missing property at its path", () => {
  expect(issuesOf({ dependencies: { from: ["to"] } }, { from: "a" })).toEqual([{ path: "to", message: "is required when from is given" }]);
});

test("validateArguments - a field name breaking propertyNames is named at its path, with the reason", () => {
  expect(issuesOf(property({ type: "object", propertyNames: { pattern: "^[a-z]+$" } }), { v: { Bad: 1 } })).toEqual([
    { path: "v.Bad", message: "is not an accepted field name: must match the pattern ^[a-z]+$" },
  ]);
});

test("validateArguments - if/then failures are reported by the rule that failed, not as the if", () => {
  expect(issuesOf({ if: { properties: { kind: { const: "file" } } }, then: { required: ["path"] } }, { kind: "file" })).toEqual([
    { path: "path", message: "is required" },
  ]);
});

test("validateArguments - the rejected value never appears in a message", () => {
  const secret = "sk-live-SECRET-0123456789";
  const issues = issuesOf(
    { properties: { a: { type: "integer" }, b: { enum: ["x"] }, c: { type: "string", format: "email" }, d: { anyOf: [{ type: "number" }, { type: "boolean" }] } } },
    { a: secret, b: secret, c: secret, d: secret },
  );
  expect(issues).toHaveLength(4);
  expect(JSON.stringify(issues)).not.toContain("SECRET");
});
