import { expect, test } from "vitest";
import { ToolDefinition } from "../tool/schema";
import { githubToolsets } from "../../../../test/support/upstream-mcp";
import { invalidNames, McpTool, toToolDefinition, toolgateName, upstreamName } from "./mcp-tools";

const mcpTool = (extra: Record<string, unknown> = {}) => McpTool.parse({ name: "get_me", description: "Who am I.", inputSchema: { type: "object", properties: {} }, ...extra });

test("toToolDefinition - an MCP tool becomes an OpenAI function with its description and inputSchema as parameters", () => {
  const schema = { type: "object", properties: { owner: { type: "string" } }, required: ["owner"] };
  expect(toToolDefinition({}, mcpTool({ inputSchema: schema }))).toEqual({
    type: "function",
    function: { name: "get_me", description: "Who am I.", parameters: schema },
  });
});

test("toToolDefinition - toolPrefix names the tool prefix_name, and the upstream name is recovered from it", () => {
  const definition = toToolDefinition({ toolPrefix: "gh" }, mcpTool());
  expect(definition.function.name).toBe("gh_get_me");
  expect(upstreamName({ toolPrefix: "gh" }, "gh_get_me")).toBe("get_me");
  expect(upstreamName({}, "gh_get_me")).toBe("gh_get_me");
  expect(toolgateName({ toolPrefix: "server" }, "tool")).toBe("server_tool");
});

test("toToolDefinition - destructiveHint: true makes the tool dangerous; other annotations change no policy", () => {
  expect(toToolDefinition({}, mcpTool({ annotations: { destructiveHint: true } }))["x-toolgate"]).toEqual({ dangerous: true });
  expect(toToolDefinition({}, mcpTool({ annotations: { destructiveHint: false, readOnlyHint: false } }))["x-toolgate"]).toBeUndefined();
  expect(toToolDefinition({}, mcpTool({ annotations: { readOnlyHint: true, idempotentHint: true } }))["x-toolgate"]).toBeUndefined();
});

test("toToolDefinition - a tool without a description is described by its title, else by its name", () => {
  expect(toToolDefinition({}, mcpTool({ description: undefined, annotations: { title: "Get me" } })).function.description).toBe("Get me");
  expect(toToolDefinition({}, mcpTool({ description: " " })).function.description).toBe("The get_me tool.");
});

test("toToolDefinition - the input and output schemas are kept whole, $schema, $defs and additionalProperties included", () => {
  const inputSchema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: { address: { type: "object", properties: { city: { type: "string" } } } },
    properties: { address: { $ref: "#/$defs/address" } },
    additionalProperties: false,
  };
  const outputSchema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
  const definition = toToolDefinition({}, mcpTool({ inputSchema, outputSchema }));
  expect(definition.function.parameters).toEqual(inputSchema);
  expect(definition.outputSchema).toEqual(outputSchema);
  expect(ToolDefinition.parse(definition)).toEqual(definition);
  expect(toToolDefinition({}, mcpTool())).not.toHaveProperty("outputSchema");
});

test("invalidNames - names that would not be valid function names are reported with the tool they come from", () => {
  const tools = [mcpTool({ name: "files.read" }), mcpTool({ name: "x".repeat(62) }), mcpTool({ name: "ok" })];
  expect(invalidNames({ toolPrefix: "gh" }, tools)).toEqual([
    { path: "tools.0.name", message: expect.stringContaining('"gh_files.read" (from the MCP tool "files.read")') },
    { path: "tools.1.name", message: expect.stringContaining("is not a valid tool name") },
  ]);
});

test("toToolDefinition - every tool of the GitHub MCP server converts to a valid toolgate tool definition", () => {
  const tools = githubToolsets().flatMap((toolset) => toolset.tools);
  expect(tools).toHaveLength(86);
  const definitions = tools.map((tool) => toToolDefinition({ toolPrefix: "gh" }, McpTool.parse(tool)));
  for (const definition of definitions) expect(ToolDefinition.safeParse(definition).success, definition.function.name).toBe(true);
  expect(definitions.filter((definition) => definition["x-toolgate"]?.dangerous).map((definition) => definition.function.name)).toContain("gh_delete_repository");
});
