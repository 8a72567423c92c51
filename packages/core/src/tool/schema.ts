import * as z from "zod";

/** The longest a tool may run (a Lambda's own limit). */
export const MAX_TOOL_TIMEOUT_MS = 900_000;

export const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const Name = z.string().regex(NAME_PATTERN, "must be 1-64 letters, digits, '_' or '-'");

export const ToolPolicy = z.strictObject({
  timeoutMs: z.number().int().min(1).max(MAX_TOOL_TIMEOUT_MS).optional(),
  dangerous: z.boolean().optional(),
  requireConfirmation: z.boolean().optional(),
  /** Hints for MCP clients (readOnlyHint, idempotentHint, openWorldHint); toolgate's policy owns them, not the module. */
  readOnly: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  openWorld: z.boolean().optional(),
  rateLimit: z
    .strictObject({
      perMinute: z.number().int().min(1).optional(),
      perHour: z.number().int().min(1).optional(),
    })
    .optional(),
  /** The most identical calls in a row (same tool, same arguments) that run; 0 switches the doom-loop check off. */
  repeatLimit: z.number().int().min(0).max(1000).optional(),
  allowedRoles: z.array(z.string().min(1)).optional(),
  allowedDepartments: z.array(z.string().min(1)).optional(),
  minLevel: z.number().int().min(0).optional(),
  strict: z.boolean().optional(),
  /** Top-level arguments that name a path (or a list of paths), resolved against the workspace root for argument policies; `"format": "path"` says the same. */
  pathArguments: z.array(z.string().min(1).max(128)).max(32).optional(),
  /** Top-level arguments that hold a shell command line, split into its simple commands for argument policies. */
  commandArguments: z.array(z.string().min(1).max(128)).max(32).optional(),
  category: z.string().max(64).optional(),
  tags: z.array(z.string().max(64)).max(32).optional(),
});
export type ToolPolicy = z.infer<typeof ToolPolicy>;

/** An object schema; that it is a valid JSON Schema is checked when a group is registered (jsonSchemaProblems), where a validator is loaded. */
export const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", { message: 'parameters must be a JSON Schema with type "object"' });

export const ToolDefinition = z.object({
  type: z.literal("function"),
  function: z.object({
    name: Name,
    description: z.string().min(1).max(4096),
    parameters: JsonSchemaObject,
  }),
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
