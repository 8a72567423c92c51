import * as z from "zod";
import { NAME_PATTERN } from "../tool/schema";
import type { ToolDefinition } from "../tool/schema";
import type { Issue } from "../validation";
import type { McpExecutor } from "./schema";

/** The part of an MCP tool (as tools/list lists it) toolgate reads; everything else is ignored. */
export const McpTool = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.looseObject({ title: z.string().optional(), destructiveHint: z.boolean().optional() }).optional(),
});
export type McpTool = z.infer<typeof McpTool>;

const MAX_DESCRIPTION = 4096;

/** The name an agent sees: "gh" and "get_me" → "gh_get_me"; without a prefix, the upstream name. */
export const toolgateName = (executor: Pick<McpExecutor, "toolPrefix">, upstream: string) =>
  executor.toolPrefix ? `${executor.toolPrefix}_${upstream}` : upstream;

/** The name the upstream knows a tool by: toolgate's name without the executor's prefix. */
export const upstreamName = (executor: Pick<McpExecutor, "toolPrefix">, name: string) =>
  executor.toolPrefix && name.startsWith(`${executor.toolPrefix}_`) ? name.slice(executor.toolPrefix.length + 1) : name;

/** The server's description as it is; a tool without one is described by its title, else by its name. */
const describe = (tool: McpTool) =>
  [tool.description, tool.annotations?.title, tool.title].find((text) => text?.trim())?.slice(0, MAX_DESCRIPTION) ?? `The ${tool.name} tool.`;

/**
 * An MCP tool as a toolgate tool definition: its input and output schemas whole, as the server declared them (`$schema`
 * included). Annotations are hints from the server, so they only ever tighten the policy: `destructiveHint: true`
 * makes the tool `dangerous` (each call waits for an admin's approval); nothing loosens it.
 */
export function toToolDefinition(executor: Pick<McpExecutor, "toolPrefix">, tool: McpTool): ToolDefinition {
  return {
    type: "function",
    function: { name: toolgateName(executor, tool.name), description: describe(tool), parameters: { ...tool.inputSchema, type: "object" } },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations?.destructiveHint === true ? { "x-toolgate": { dangerous: true } } : {}),
  };
}

/** The imported tools whose toolgate name would not be a valid function name (too long, or characters like "." or "/"). */
export const invalidNames = (executor: Pick<McpExecutor, "toolPrefix">, tools: readonly McpTool[]): Issue[] =>
  tools.flatMap((tool, index) => {
    const name = toolgateName(executor, tool.name);
    return NAME_PATTERN.test(name) ? [] : [{ path: `tools.${index}.name`, message: `"${name}" (from the MCP tool "${tool.name}") is not a valid tool name: 1-64 letters, digits, '_' or '-'` }];
  });
