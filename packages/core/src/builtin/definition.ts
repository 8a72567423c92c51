import type { DescribedTool } from "@toolgate/module/tool";
import type { ToolDefinition } from "../tool/schema";

/** A built-in tool's definition as the catalog stores it (its policy is one of toolgate's: builtin.test.ts parses each). */
export const definitionOf = (tool: DescribedTool): ToolDefinition => tool.definition as ToolDefinition;
