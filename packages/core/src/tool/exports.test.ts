import { expect, test } from "vitest";
import { anthropicInputSchema, exportTool, geminiSchema } from "./exports";

const GEMINI_KEYS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);

/** Every key anywhere in a Gemini schema, walking properties, items and anyOf. */
function keysOf(schema: Record<string, any>): string[] {
  const nested = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.anyOf ?? []),
  ] as Array<Record<string, any>>;
  return [...Object.keys(schema), ...nested.flatMap(keysOf)];
}

const rich = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  properties: {
    owner: { type: "string", description: "The owner.", examples: ["octocat"] },
    state: { type: ["string", "null"], enum: ["open", "closed", null] },
    count: { type: "integer", minimum: 1, maximum: 100, default: 30 },
    kind: { const: "issue" },
    labels: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, uniqueItems: true },
    target: { oneOf: [{ type: "string" }, { type: "integer" }] },
    ref: { $ref: "#/$defs/Ref" },
  },
  required: ["owner", "ghost"],
  $defs: { Ref: { type: "string" } },
  anyOf: [{ required: ["owner"] }],
};

test("geminiSchema - keeps only the keys of Gemini's Schema object, at every depth, and converts what has a Gemini form", () => {
  const converted = geminiSchema(rich);
  expect(keysOf(converted).filter((key) => !GEMINI_KEYS.has(key))).toEqual([]);
  const properties = converted.properties as Record<string, any>;
  expect(properties.state).toEqual({ type: "string", nullable: true, enum: ["open", "closed"] });
  expect(properties.kind).toEqual({ enum: ["issue"] });
  expect(properties.owner).toEqual({ type: "string", description: "The owner.", example: "octocat" });
  expect(properties.labels).toEqual({ type: "array", items: { type: "string", pattern: "^[a-z]+$" } });
  expect(properties.target).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
  expect(properties.ref).toEqual({});
  expect(converted.required).toEqual(["owner"]);
  expect(converted).not.toHaveProperty("additionalProperties");
  expect(converted).not.toHaveProperty("$schema");
});

test("anthropicInputSchema - leaves out oneOf, anyOf and allOf at the top only, which Anthropic refuses there", () => {
  const converted = anthropicInputSchema(rich);
  expect(converted).not.toHaveProperty("anyOf");
  expect((converted.properties as any).target.oneOf).toHaveLength(2);
  expect(converted.additionalProperties).toBe(false);
});

test("exportTool - each API's own shape: OpenAI function, Anthropic input_schema, MCP inputSchema with annotations, Gemini declaration", () => {
  const definition = { type: "function" as const, function: { name: "list_issues", description: "List issues.", parameters: rich } };
  const policy = { dangerous: true, disabled: false };
  expect(exportTool("openai", definition, policy)).toEqual({ type: "function", function: definition.function });
  expect(Object.keys(exportTool("anthropic", definition, policy)).sort()).toEqual(["description", "input_schema", "name"]);
  expect(exportTool("mcp", definition, policy)).toEqual({ name: "list_issues", description: "List issues.", inputSchema: rich, annotations: { destructiveHint: true } });
  const gemini = exportTool("gemini", definition, policy) as { name: string; parameters: Record<string, any> };
  expect(Object.keys(gemini).sort()).toEqual(["description", "name", "parameters"]);
  expect(gemini.parameters.type).toBe("object");
});

test("exportTool - a tool's outputSchema is MCP's alone; $schema stays in every shape but Gemini's, whose Schema object has no such key", () => {
  const outputSchema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { total: { type: "integer" } } };
  const definition = { type: "function" as const, function: { name: "count_issues", description: "Count issues.", parameters: rich }, outputSchema };
  const policy = { disabled: false };
  expect(exportTool("mcp", definition, policy)).toMatchObject({ inputSchema: rich, outputSchema });
  expect(exportTool("openai", definition, policy)).toEqual({ type: "function", function: definition.function });
  expect((exportTool("anthropic", definition, policy) as { input_schema: object }).input_schema).toHaveProperty("$schema", rich.$schema);
  expect(JSON.stringify(exportTool("gemini", definition, policy))).not.toContain("$schema");
  for (const format of ["openai", "anthropic", "gemini"] as const) expect(JSON.stringify(exportTool(format, definition, policy))).not.toContain("outputSchema");
});
