import { expect, test } from "vitest";
import * as z from "zod";
import { AgentInput } from "./agent/schema";
import { CALL_ERRORS } from "./call/errors";
import { CallRequest } from "./call/schema";
import { ToolgateError } from "./error";
import { GroupInput } from "./group/schema";
import { ModuleLoaded } from "./module/schema";
import { RoleInput } from "./role/schema";
import { ToolPolicy } from "./policy/schema";
import { describeIssues, humanErrorMap, parseOr, safeParseHuman, type Issue } from "./validation";

const JARGON = /expected record|discriminator|received NaN|Invalid input|received undefined|must NOT|Too small|Too big|Unrecognized key/i;

const tool = (name: string) => ({ type: "function", function: { name, description: "A tool.", parameters: { type: "object" } } });
const group = (extra: Record<string, unknown>) => ({ description: "A group.", tools: [tool("a")], ...extra });
/** The paging query of the execution API: `?limit=` arrives as a string. */
const PageQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().min(1).optional() });

const THING_ERRORS = { invalid_thing: 400 } as const;

function rejection(schema: z.ZodType, input: unknown): { message: string; details: Issue[] } {
  try {
    parseOr(schema, input, THING_ERRORS, "invalid_thing", "The thing");
  } catch (error) {
    if (!(error instanceof ToolgateError)) throw error;
    return { message: error.message, details: error.details.details as Issue[] };
  }
  throw new Error("the input was accepted");
}

const cases: Array<[string, z.ZodType, unknown, Issue[]]> = [
  ["a discriminated union with an unknown type", GroupInput, group({ executor: { type: "ftp" } }), [{ path: "executor.type", message: "must be one of: http, mcp, stdio, client, native" }]],
  ["a discriminated union without its type", GroupInput, group({ executor: {} }), [{ path: "executor.type", message: "is required and must be one of: http, mcp, stdio, client, native" }]],
  ["a missing field, next to a schema's own regex message", GroupInput, { tools: [tool("has space")] }, [
    { path: "description", message: "is required" },
    { path: "tools.0.function.name", message: "must be 1-64 letters, digits, '_' or '-'" },
  ]],
  ["a schema's own url message", GroupInput, group({ executor: { type: "http", url: "ftp://x.example.com" } }), [{ path: "executor.url", message: "must be an http:// or https:// URL" }]],
  ["an empty string and an empty list", GroupInput, { description: " ", tools: [] }, [
    { path: "description", message: "cannot be empty" },
    { path: "tools", message: "must have at least 1 item" },
  ]],
  ["a literal", GroupInput, { description: "d", tools: [{ ...tool("a"), type: "fn" }] }, [{ path: "tools.0.type", message: 'must be "function"' }]],
  ["a list sent as a string", RoleInput, { name: "r", toolGroups: "x" }, [{ path: "toolGroups", message: "must be a list, not a string" }]],
  ["arguments sent as a JSON string", CallRequest, { tool: "x", arguments: '{"url":"https://example.com"}' }, [{
    path: "arguments",
    message: "must be a JSON object, not a string; if your model produced the arguments as a JSON string (as OpenAI tool calls do), parse it and send the object",
  }]],
  ["arguments sent as a list", CallRequest, { tool: "x", arguments: [] }, [{ path: "arguments", message: "must be an object, not a list" }]],
  ["a query number that is not a number", PageQuery, { limit: "abc" }, [{ path: "limit", message: "must be a number" }]],
  ["a query number that is a fraction or out of range", PageQuery, { limit: "1.5", cursor: "" }, [
    { path: "limit", message: "must be an integer" },
    { path: "cursor", message: "cannot be empty" },
  ]],
  ["one unknown key", PageQuery, { limit: "5", offset: "3" }, [{ path: "(root)", message: 'has an unknown field "offset"' }]],
  ["several unknown keys", RoleInput, { name: "r", extra: 1, more: 2 }, [{ path: "(root)", message: 'has unknown fields "extra", "more"' }]],
  ["numbers, booleans, integers and list lengths", ToolPolicy, { timeoutMs: 1.5, dangerous: "yes", minLevel: -1, tags: Array(33).fill("t"), category: "c".repeat(65) }, [
    { path: "timeoutMs", message: "must be an integer" },
    { path: "dangerous", message: "must be true or false, not a string" },
    { path: "minLevel", message: "must be at least 0" },
    { path: "category", message: "must be at most 64 characters long" },
    { path: "tags", message: "must have at most 32 items" },
  ]],
  ["null where a number belongs", AgentInput, { roleId: 1, level: null }, [
    { path: "roleId", message: "must be a string, not a number" },
    { path: "level", message: "must be a number, not null" },
  ]],
  ["a number above its maximum", AgentInput, { roleId: "r", level: 1001 }, [{ path: "level", message: "must be at most 1000" }]],
  ["a value that is not an object at all", CallRequest, null, [{ path: "(root)", message: "must be an object, not null" }]],
  ["exclusive bounds", z.object({ n: z.number().gt(0).lt(10) }), { n: 10 }, [{ path: "n", message: "must be less than 10" }]],
  ["a multiple", z.object({ n: z.number().multipleOf(5) }), { n: 3 }, [{ path: "n", message: "must be a multiple of 5" }]],
  ["an exact length", z.object({ code: z.string().length(4) }), { code: "12345" }, [{ path: "code", message: "must be exactly 4 characters long" }]],
  ["a generic url", z.object({ link: z.url() }), { link: "nope" }, [{ path: "link", message: "must be a valid URL" }]],
  ["an http-only url without its own message", z.object({ link: z.url({ protocol: /^https?$/ }) }), { link: "ftp://x.example.com" }, [{ path: "link", message: "must be an http:// or https:// URL" }]],
  ["an email", z.object({ to: z.email() }), { to: "nope" }, [{ path: "to", message: "must be a valid email address" }]],
  ["a regex without its own message", z.object({ id: z.string().regex(/^[a-z]+$/) }), { id: "A1" }, [{ path: "id", message: "must match the pattern /^[a-z]+$/" }]],
  ["a prefix", z.object({ id: z.string().startsWith("tg_") }), { id: "x" }, [{ path: "id", message: 'must start with "tg_"' }]],
  ["an enum", z.object({ mode: z.enum(["text", "json", "error"]) }), { mode: "xml" }, [{ path: "mode", message: "must be one of: text, json, error" }]],
  ["a union of primitives", z.object({ v: z.union([z.string(), z.number()]) }), { v: true }, [{ path: "v", message: "must be a string or a number, not a boolean" }]],
  ["a union of shapes", z.object({ v: z.union([z.object({ a: z.string() }), z.number()]) }), { v: {} }, [{ path: "v", message: "does not match any of the allowed forms" }]],
  ["a record key", z.record(z.string().min(3), z.number()), { ab: 1 }, [{ path: "ab", message: "is not an accepted key: must be at least 3 characters long" }]],
  ["a map entry under an object key", z.map(z.object({ id: z.string() }), z.number()), new Map([[{ id: "a" }, "x"]]), [{ path: "(root)", message: "has an entry that is not valid: must be a number, not a string" }]],
  ["a refinement with its own message", z.object({ n: z.number().refine((n) => n % 2 === 0, "must be even") }), { n: 3 }, [{ path: "n", message: "must be even" }]],
  ["a refinement without a message", z.object({ n: z.number().refine((n) => n % 2 === 0) }), { n: 3 }, [{ path: "n", message: "is not valid" }]],
  ["a duplicate tool in a group (superRefine)", GroupInput, { description: "d", tools: [tool("a"), tool("A")] }, [{ path: "tools.1.function.name", message: 'tool name "A" appears more than once in the group' }]],
];

test.each(cases)("parseOr - %s is described in plain English", (_name, schema, input, expected) => {
  const { message, details } = rejection(schema, input);
  expect(details).toEqual(expected);
  expect(message).not.toMatch(JARGON);
  for (const detail of details) expect(detail.message).not.toMatch(JARGON);
});

test("parseOr - the message names what was parsed and lists the details", () => {
  expect(rejection(CallRequest, { tool: "x", arguments: "{}" }).message).toBe(
    "The thing is not valid: arguments: must be a JSON object, not a string; if your model produced the arguments as a JSON string (as OpenAI tool calls do), parse it and send the object.",
  );
});

test("parseOr - a valid input is returned parsed, defaults and coercion applied", () => {
  expect(parseOr(PageQuery, { limit: "5" }, THING_ERRORS, "invalid_thing", "The query string")).toEqual({ limit: 5 });
  expect(parseOr(CallRequest, { tool: "x" }, CALL_ERRORS, "invalid_request", "The call")).toEqual({ tool: "x", arguments: {} });
});

test("parseOr - the rejected value never appears in a message", () => {
  const secret = "sk-live-SECRET-0123456789";
  const inputs: Array<[z.ZodType, unknown]> = [
    [CallRequest, { tool: "x", arguments: secret }],
    [CallRequest, { tool: secret.repeat(20) }],
    [PageQuery, { limit: secret, cursor: 5 }],
    [AgentInput, { roleId: "r", level: secret }],
    [z.object({ mode: z.enum(["a", "b"]) }), { mode: secret }],
    [z.object({ link: z.url() }), { link: secret }],
    [z.object({ v: z.union([z.number(), z.boolean()]) }), { v: secret }],
    [z.literal("function"), secret],
  ];
  for (const [schema, input] of inputs) {
    const { message, details } = rejection(schema, input);
    expect(message).not.toContain("SECRET");
    expect(JSON.stringify(details)).not.toContain("SECRET");
  }
});

test("safeParseHuman - gives the same plain English outside parseOr, e.g. for module events", () => {
  const result = safeParseHuman(ModuleLoaded, { module: "m", version: -1, description: 3, tools: "x", executor: { type: "ftp" } });
  expect(result.success).toBe(false);
  if (result.success) return;
  expect(describeIssues(result.error)).toEqual([
    { path: "version", message: "must be at least 0" },
    { path: "description", message: "must be a string, not a number" },
    { path: "tools", message: "must be a list, not a string" },
    { path: "executor.type", message: "must be one of: http, mcp, stdio, client, native" },
  ]);
});

test("humanErrorMap - a message set on a schema or a check keeps precedence", () => {
  const schema = z.object({ a: z.string().min(3, "is too short for a name"), b: z.number({ error: "wants a count" }) });
  const result = schema.safeParse({ a: "x", b: "y" }, { error: humanErrorMap });
  expect(result.success).toBe(false);
  if (result.success) return;
  expect(describeIssues(result.error)).toEqual([
    { path: "a", message: "is too short for a name" },
    { path: "b", message: "wants a count" },
  ]);
});

test("humanErrorMap - long enum lists are cut short", () => {
  const many = z.enum(Array.from({ length: 25 }, (_, i) => `v${i}`) as [string, ...string[]]);
  expect(rejection(many, "x").details).toEqual([{ path: "(root)", message: "must be one of: v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, … (and 15 more)" }]);
});
