import * as z from "zod";
import type { EffectivePolicy } from "../policy/rules";
import { needsConfirmation } from "../policy/rules";
import type { ToolDefinition } from "./schema";

/** The model APIs whose tool shape GET /agents/:id/tools can answer in. */
export const ToolFormat = z.enum(["openai", "anthropic", "mcp", "gemini"]);
export type ToolFormat = z.infer<typeof ToolFormat>;

/** GET /agents/:id/tools?format=: the model API whose tool shape to answer in, OpenAI's by default. */
export const ToolsQuery = z.strictObject({ format: ToolFormat.default("openai") });

type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);

/** Anthropic refuses oneOf, anyOf and allOf at the top of input_schema: they are left out there (nested ones stay). */
const TOP_LEVEL_COMBINATORS = ["oneOf", "anyOf", "allOf"];

export const anthropicInputSchema = (parameters: Schema): Schema =>
  Object.fromEntries(Object.entries(parameters).filter(([key]) => !TOP_LEVEL_COMBINATORS.includes(key)));

/** The keys of Gemini's Schema object (FunctionDeclaration.parameters, a subset of OpenAPI 3.0); anything else is dropped. */
const GEMINI_KEYS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);

/** JSON Schema as Gemini's Schema subset: type lists become type + nullable, const and oneOf their nearest kin, enums strings. */
export function geminiSchema(schema: unknown): Schema {
  if (!isObject(schema)) return {};
  const source: Schema = { ...schema };
  if (Array.isArray(source.type)) {
    const types = source.type.filter((type) => type !== "null");
    if (types.length < source.type.length) source.nullable = true;
    source.type = types[0] ?? "string";
  }
  if ("const" in source && !("enum" in source)) source.enum = [source.const];
  if (Array.isArray(source.oneOf) && !("anyOf" in source)) source.anyOf = source.oneOf;
  if (Array.isArray(source.examples) && !("example" in source)) source.example = source.examples[0];
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (!GEMINI_KEYS.has(key)) continue;
    if (key === "properties" && isObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, geminiSchema(inner)]));
    else if (key === "items") out.items = geminiSchema(Array.isArray(value) ? value[0] : value);
    else if (key === "anyOf" && Array.isArray(value)) out.anyOf = value.map(geminiSchema);
    else if (key === "enum" && Array.isArray(value)) out.enum = value.filter((item) => item !== null).map(String);
    else out[key] = value;
  }
  if (Array.isArray(out.required) && isObject(out.properties)) out.required = out.required.filter((name) => name in (out.properties as Schema));
  return out;
}

/** MCP's tool annotations, from toolgate's policy only: what a module claims is not trusted. */
export function annotationsOf(policy: EffectivePolicy) {
  const annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean } = {};
  if (policy.readOnly !== undefined) annotations.readOnlyHint = policy.readOnly;
  if (needsConfirmation(policy)) annotations.destructiveHint = true;
  else if (policy.readOnly === true) annotations.destructiveHint = false;
  if (policy.idempotent !== undefined) annotations.idempotentHint = policy.idempotent;
  if (policy.openWorld !== undefined) annotations.openWorldHint = policy.openWorld;
  return annotations;
}

/** One tool as the given API takes it. */
export function exportTool(format: ToolFormat, definition: ToolDefinition, policy: EffectivePolicy) {
  const { name, description, parameters } = definition.function;
  switch (format) {
    case "openai":
      return { type: "function", function: definition.function };
    case "anthropic":
      return { name, description, input_schema: anthropicInputSchema(parameters) };
    case "mcp":
      return { name, description, inputSchema: parameters, ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}), annotations: annotationsOf(policy) };
    case "gemini":
      return { name, description, parameters: geminiSchema(parameters) };
  }
}
