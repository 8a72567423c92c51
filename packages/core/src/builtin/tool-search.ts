import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import type { Group } from "../group/schema";
import { MAX_QUERY_CHARS } from "../search/schema";
import { Name } from "../tool/schema";
import type { ToolDefinition } from "../tool/schema";
import { definitionOf } from "./definition";

export const SEARCH_TOOLS = "search_tools";
export const CALL_TOOL = "call_tool";
/** The group meta tools are recorded under; reserved, like the built-in groups' ids. */
export const META_GROUP_ID = "tool_search";

export const MAX_SEARCH_TOOLS_LIMIT = 20;

/** search_tools as every agent sees it; toolgate runs it (search-tools.ts), over what the agent may call. */
export const searchToolsDescription = {
  name: SEARCH_TOOLS,
  description:
    "Find tools for a task among every tool you may use, including ones not listed to you. Describe the task in plain words; returns { tools: [...] }, the best-matching tool definitions (name, description, parameters), best first. Call one with call_tool.",
  parameters: z.strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(MAX_QUERY_CHARS)
      .describe('What you want to do, in plain words, e.g. "open an issue about a failing build" or "list pull requests waiting for review".'),
    limit: z.number().int().min(1).max(MAX_SEARCH_TOOLS_LIMIT).default(5).describe("How many tools to return, best first."),
  }),
} satisfies ToolDescription;

/** call_tool never runs as a tool of its own: the guard checks it and treats it as the call of the tool it names (guard/call-tool.ts). */
export const callToolDescription = {
  name: CALL_TOOL,
  description:
    "Call a tool that search_tools found, by its exact name, with arguments that match its parameters. The call is checked and recorded exactly as if you had called the tool directly, and returns that tool's result.",
  parameters: z.strictObject({
    name: Name.describe("The exact name of a tool that search_tools returned."),
    arguments: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments, as its parameters schema describes them."),
  }),
} satisfies ToolDescription;

const META_TOOLS = [searchToolsDescription, callToolDescription].map(describeTool);

let group: Group | undefined;

/** The two tools every agent has besides its role's groups, toolgate's own; their definitions are made on first use. */
export const metaGroup = (): Group =>
  (group ??= {
    id: META_GROUP_ID,
    description: "Find the tools you may use for a task, and call one you found.",
    tools: META_TOOLS.map(definitionOf),
    executor: { type: "native" },
    reserved: true,
    source: "builtin",
    registeredAt: "1970-01-01T00:00:00.000Z",
    updatedAt: "1970-01-01T00:00:00.000Z",
  });

const META_NAMES: ReadonlySet<string> = new Set([SEARCH_TOOLS, CALL_TOOL]);

/** search_tools or call_tool, compared as tool names are (ignoring case): no group may register a tool by either name. */
export const isMetaTool = (name: string) => META_NAMES.has(name.toLowerCase());

export const metaTool = (name: string): ToolDefinition | undefined => (META_NAMES.has(name) ? metaGroup().tools.find((tool) => tool.function.name === name) : undefined);
