import { expect, test } from "vitest";
import type { ToolDefinition } from "../tool/definition";
import { validateArguments } from "./arguments";

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
    issues: [{ path: "url", message: expect.stringMatching(/uri/) }],
  });
});

test("validateArguments - types are not coerced", () => {
  expect(validateArguments(search, { query: "x", limit: "5" }, false).valid).toBe(false);
  expect(validateArguments(search, { query: 5 }, false).valid).toBe(false);
});
