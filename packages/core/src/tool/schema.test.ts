import { expect, test } from "vitest";
import { forAgent, NAME_PATTERN, ToolDefinition, toolName } from "./schema";
import { ToolPolicy } from "../policy/schema";

const definition = (name: string, parameters: Record<string, unknown> = { type: "object", properties: {} }) => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters },
});

const accepts = (input: unknown) => ToolDefinition.safeParse(input).success;

const issuePaths = (input: unknown) => {
  const result = ToolDefinition.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
};

test("ToolDefinition - accepts a definition in the OpenAI function format", () => {
  const input = definition("search_code", {
    type: "object",
    properties: { query: { type: "string", description: "What to look for." } },
    required: ["query"],
    additionalProperties: false,
  });
  expect(ToolDefinition.parse(input)).toEqual(input);
});

test("ToolDefinition - accepts names of 1 to 64 letters, digits, '_' and '-'", () => {
  for (const name of ["a", "Z", "0", "_", "-", "open_tab", "Open-Tab_2", "a".repeat(64)]) expect(accepts(definition(name)), name).toBe(true);
});

test("ToolDefinition - refuses bad names", () => {
  for (const name of ["", "a".repeat(65), "open tab", "open.tab", "naïve", "tool/x", "tool:x", " lead", "trail\n", "日本"]) {
    expect(accepts(definition(name)), JSON.stringify(name)).toBe(false);
    expect(issuePaths(definition(name)), JSON.stringify(name)).toContain("function.name");
  }
});

test("ToolDefinition - refuses parameters that are not type object", () => {
  for (const parameters of [{ type: "string" }, { type: "array", items: {} }, { properties: {} }, { type: ["object", "null"] }]) {
    expect(accepts(definition("t", parameters)), JSON.stringify(parameters)).toBe(false);
    expect(issuePaths(definition("t", parameters))).toContain("function.parameters");
  }
});

test("ToolDefinition - refuses a missing description and a type other than function", () => {
  expect(accepts({ type: "function", function: { name: "t", parameters: { type: "object" } } })).toBe(false);
  expect(accepts({ ...definition("t"), function: { ...definition("t").function, description: "" } })).toBe(false);
  expect(accepts({ ...definition("t"), type: "tool" })).toBe(false);
  expect(accepts({ function: definition("t").function })).toBe(false);
});

test("ToolDefinition - validates the x-toolgate policy", () => {
  expect(accepts({ ...definition("t"), "x-toolgate": { timeoutMs: 500, dangerous: true, rateLimit: { perMinute: 2 } } })).toBe(true);
  expect(accepts({ ...definition("t"), "x-toolgate": { timeoutMs: 0 } })).toBe(false);
  expect(accepts({ ...definition("t"), "x-toolgate": { unknownKey: true } })).toBe(false);
  expect(accepts({ ...definition("t"), "x-toolgate": { rateLimit: { perDay: 1 } } })).toBe(false);
  expect(ToolPolicy.safeParse({ minLevel: -1 }).success).toBe(false);
});

test("NAME_PATTERN - is the tool name pattern of the design", () => {
  expect(NAME_PATTERN.test("a".repeat(64))).toBe(true);
  expect(NAME_PATTERN.test("a".repeat(65))).toBe(false);
  expect(NAME_PATTERN.test("a b")).toBe(false);
});

test("forAgent - strips x-toolgate and keeps the function untouched", () => {
  const full = ToolDefinition.parse({ ...definition("t"), "x-toolgate": { dangerous: true, tags: ["x"] } });
  const agentFacing = forAgent(full);
  expect(agentFacing).toEqual({ type: "function", function: full.function });
  expect(agentFacing).not.toHaveProperty("x-toolgate");
  expect(full).toHaveProperty("x-toolgate");
  expect(toolName(full)).toBe("t");
});
