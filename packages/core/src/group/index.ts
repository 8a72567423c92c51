import { z } from "zod";
import { Name, ToolDefinition } from "../tool/definition";

export const HttpExecutor = z.strictObject({
  type: z.literal("http"),
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  timeoutMs: z.number().int().min(1).max(900_000).optional(),
});
export const ClientExecutor = z.strictObject({ type: z.literal("client") });
export const NativeExecutor = z.strictObject({ type: z.literal("native") });
export const Executor = z.discriminatedUnion("type", [HttpExecutor, ClientExecutor, NativeExecutor]);
export type Executor = z.infer<typeof Executor>;

export const GroupSource = z.enum(["builtin", "module", "api"]);
export type GroupSource = z.infer<typeof GroupSource>;

const MAX_TOOLS_PER_GROUP = 500;

export const GroupInput = z.strictObject({
  description: z.string().trim().min(1).max(1024),
  tools: z
    .array(ToolDefinition)
    .min(1)
    .max(MAX_TOOLS_PER_GROUP)
    .superRefine((tools, ctx) => {
      const seen = new Set<string>();
      tools.forEach((tool, index) => {
        const key = tool.function.name.toLowerCase();
        if (seen.has(key))
          ctx.addIssue({
            code: "custom",
            path: [index, "function", "name"],
            message: `tool name "${tool.function.name}" appears more than once in the group`,
          });
        seen.add(key);
      });
    }),
  executor: Executor.optional(),
});
export type GroupInput = z.infer<typeof GroupInput>;

export const Group = GroupInput.extend({
  id: Name,
  reserved: z.boolean(),
  source: GroupSource,
  module: z.string().optional(),
  registeredAt: z.string(),
  updatedAt: z.string(),
});
export type Group = z.infer<typeof Group>;

/** A group as the API shows it: identity first, full tool definitions last. */
export const groupView = (group: Group) => ({
  id: group.id,
  description: group.description,
  toolCount: group.tools.length,
  reserved: group.reserved,
  source: group.source,
  ...(group.module ? { module: group.module } : {}),
  ...(group.executor ? { executor: group.executor } : {}),
  registeredAt: group.registeredAt,
  updatedAt: group.updatedAt,
  tools: group.tools,
});

export type GroupSummary = {
  id: string;
  description: string;
  toolCount: number;
  tools: string[];
  reserved: boolean;
  source: GroupSource;
  module?: string;
  updatedAt: string;
};

export const summarise = (group: Group): GroupSummary => ({
  id: group.id,
  description: group.description,
  toolCount: group.tools.length,
  tools: group.tools.map((tool) => tool.function.name),
  reserved: group.reserved,
  source: group.source,
  ...(group.module ? { module: group.module } : {}),
  updatedAt: group.updatedAt,
});
