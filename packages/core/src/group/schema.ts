import * as z from "zod";
import { Executor } from "../executor/schema";
import { Name, ToolDefinition } from "../tool/schema";
import { GroupScope, SYSTEM } from "../scope/schema";
import { OfferPolicy, Offers } from "../offer/schema";

export const GroupSource = z.enum(["builtin", "module", "api"]);
export type GroupSource = z.infer<typeof GroupSource>;

export const MAX_TOOLS_PER_GROUP = 500;

export const ToolList = z
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
  });

const Description = z.string().trim().min(1).max(1024);

/** A group as it is registered: its tools, all of them. */
export const GroupDefinition = z.strictObject({
  description: Description,
  tools: ToolList,
  executor: Executor.optional(),
  /** Who the group's tools are for: everyone (the default), one department, or one agent. */
  scope: GroupScope.optional(),
  /** What its MCP server offers besides tools (resources, templates, prompts), imported with its tools. */
  offers: Offers.optional(),
  /** How the guard treats the group's resource reads and prompt gets. */
  offerPolicy: OfferPolicy.optional(),
});
export type GroupDefinition = z.infer<typeof GroupDefinition>;

/** A group as a request or a module sends it: a group served by an MCP server may leave its tools to be imported from it. */
export const GroupInput = z
  .strictObject({
    description: Description,
    tools: ToolList.optional(),
    executor: Executor.optional(),
    scope: GroupScope.optional(),
    offerPolicy: OfferPolicy.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.tools === undefined && input.executor?.type !== "mcp" && input.executor?.type !== "stdio")
      ctx.addIssue({ code: "custom", path: ["tools"], message: 'is required unless the executor is an MCP server ({ "type": "mcp", ... } or { "type": "stdio", ... }), whose tools are imported' });
  });
export type GroupInput = z.infer<typeof GroupInput>;

export const Group = GroupDefinition.extend({
  id: Name,
  reserved: z.boolean(),
  source: GroupSource,
  module: z.string().optional(),
  registeredAt: z.string(),
  updatedAt: z.string(),
});
export type Group = z.infer<typeof Group>;

/** GET /groups: every group, or those of one scope. */
export const GroupListQuery = z.strictObject({ scope: GroupScope.optional() });
export type GroupListQuery = z.infer<typeof GroupListQuery>;

/** A group's scope; a group stored without one is everyone's, as every group was before scopes. */
export const scopeOfGroup = (group: Pick<Group, "scope">): GroupScope => group.scope ?? SYSTEM;

export type GroupSummary = {
  id: string;
  scope: GroupScope;
  description: string;
  toolCount: number;
  tools: string[];
  reserved: boolean;
  source: GroupSource;
  module?: string;
  /** null: no executor is bound, so the group's tools cannot run. */
  executor: { type: Executor["type"]; url?: string } | null;
  updatedAt: string;
};
