import * as z from "zod";
import { ToolPolicy } from "../policy/schema";

export const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const Name = z.string().regex(NAME_PATTERN, "must be 1-64 letters, digits, '_' or '-'");

/** An object schema; that it is a valid JSON Schema is checked when a group is registered (jsonSchemaProblems), where a validator is loaded. */
export const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", { message: 'parameters must be a JSON Schema with type "object"' });

/** MCP's outputSchema: what a tool's structuredContent conforms to, listed to MCP clients only (the function formats have no place for it). */
export const OutputSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", { message: 'outputSchema must be a JSON Schema with type "object"' });

export const ToolDefinition = z.object({
  type: z.literal("function"),
  function: z.object({
    name: Name,
    description: z.string().min(1).max(4096),
    parameters: JsonSchemaObject,
  }),
  outputSchema: OutputSchema.optional(),
  "x-toolgate": ToolPolicy.optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

export type AgentToolDefinition = Omit<ToolDefinition, "x-toolgate">;

/** What an agent receives: the OpenAI function format with toolgate's policy removed. */
export const forAgent = (definition: ToolDefinition): AgentToolDefinition => ({
  type: "function",
  function: definition.function,
});

export const toolName = (definition: ToolDefinition) => definition.function.name;

/** The filters of the tool list: by category and tag from `x-toolgate`, and a text to look for in names and descriptions. */
export const ToolQuery = z.strictObject({
  category: z.string().min(1).max(64).optional(),
  tag: z.string().min(1).max(64).optional(),
  q: z.string().min(1).max(200).optional(),
});
export type ToolQuery = z.infer<typeof ToolQuery>;
