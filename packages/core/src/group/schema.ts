import * as z from "zod";
import { Executor } from "../executor/schema";
import { Name, ToolDefinition } from "../tool/schema";

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
