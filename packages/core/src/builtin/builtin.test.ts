import { expect, test } from "vitest";
import { BUILTIN_TOOLS } from "../../../../test/support/fixtures";
import { Ajv } from "ajv";
import { ToolDefinition } from "../tool/schema";
import { BUILTIN_GROUPS, builtinGroups, NATIVE_GROUP_IDS, NATIVE_TOOLS } from "./groups";
import { RESERVED_GROUP_IDS } from "./ids";
import * as Descriptions from "./index";
import { metaGroup, SEARCH_TOOLS } from "./tool-search";

const EXPECTED_TOOLS = BUILTIN_TOOLS;

const allTools = builtinGroups().flatMap((group) => group.tools);
/** Each built-in tool as defined, by name: its input checked with its own zod schema. */
const defined = new Map(BUILTIN_GROUPS.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
const accepts = (name: string, input: unknown) => defined.get(name)!.parse(input).ok;

function toolNamed(name: string) {
  const tool = allTools.find((t) => t.function.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
}

test("RESERVED_GROUP_IDS - lists the seven groups in order", () => {
  expect([...RESERVED_GROUP_IDS]).toEqual(Object.keys(EXPECTED_TOOLS));
});

test("BUILTIN_GROUPS - holds exactly the seven groups with exactly their tools", () => {
  const actual = Object.fromEntries(builtinGroups().map((g) => [g.id, g.tools.map((t) => t.function.name)]));
  expect(actual).toEqual(EXPECTED_TOOLS);
  expect(builtinGroups().map((g) => g.id)).toEqual([...RESERVED_GROUP_IDS]);
});

test("NATIVE_GROUP_IDS - org_management and artifact run in toolgate, with search_tools; every other built-in group runs in the agent's runtime", () => {
  expect(NATIVE_GROUP_IDS).toEqual(["org_management", "artifact"]);
  expect([...NATIVE_TOOLS.keys()].sort()).toEqual([...EXPECTED_TOOLS.org_management!, ...EXPECTED_TOOLS.artifact!, SEARCH_TOOLS].sort());
  for (const group of builtinGroups()) expect(group.executor, group.id).toEqual({ type: NATIVE_GROUP_IDS.includes(group.id) ? "native" : "client" });
});

test("@toolgate/core/builtin - describes every tool that runs outside toolgate, as its group defines it, for a module to add execute to", () => {
  const described = (Object.values(Descriptions) as unknown[]).filter((value): value is { name: string } => typeof value === "object" && value !== null && "parameters" in value);
  const outside = builtinGroups().filter((group) => !NATIVE_GROUP_IDS.includes(group.id));
  expect(described.map((description) => description.name).sort()).toEqual(outside.flatMap((group) => group.tools.map((tool) => tool.function.name)).sort());
  expect(Descriptions.readFile.name).toBe("read_file");
  expect(Descriptions.runCommand.policy).toEqual({ commandArguments: ["command"], pathArguments: ["cwd"], rateLimit: { perMinute: 60, perHour: 1200 } });
});

test("metaGroup - search_tools and call_tool, without a policy", () => {
  expect(metaGroup().tools.map((tool) => tool.function.name)).toEqual(["search_tools", "call_tool"]);
  for (const tool of metaGroup().tools) expect(ToolDefinition.safeParse(tool).success, tool.function.name).toBe(true);
});

test("tool names - match the tool name pattern and are unique across groups", () => {
  const names = allTools.map((t) => t.function.name);
  for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  expect(new Set(names).size).toBe(names.length);
});

test("tool definitions - use the OpenAI function format", () => {
  for (const tool of allTools) {
    expect(tool.type).toBe("function");
    expect(Object.keys(tool).filter((key) => key !== "x-toolgate").sort()).toEqual(["function", "type"]);
    expect(Object.keys(tool.function).sort()).toEqual(["description", "name", "parameters"]);
  }
});

test("built-in policies - get_context_status (a polled status) switches the doom-loop check off; the workspace tools and run_command declare their path and command arguments; the command tools have a rate limit; no other built-in carries a policy", () => {
  const withPolicy = allTools.filter((tool) => tool["x-toolgate"] !== undefined);
  expect(Object.fromEntries(withPolicy.map((tool) => [tool.function.name, tool["x-toolgate"]]))).toEqual({
    read_file: { pathArguments: ["path"] },
    write_file: { pathArguments: ["path"] },
    list_files: { pathArguments: ["path"] },
    run_command: { commandArguments: ["command"], pathArguments: ["cwd"], rateLimit: { perMinute: 60, perHour: 1200 } },
    run_javascript: { rateLimit: { perMinute: 30, perHour: 600 } },
    get_context_status: { repeatLimit: 0 },
  });
});

test("tool definitions - pass the ToolDefinition schema", () => {
  for (const tool of allTools) expect(ToolDefinition.safeParse(tool).success, tool.function.name).toBe(true);
});

test("parameters - compile under strict ajv and agree with the zod schemas", () => {
  const ajv = new Ajv({ strict: true });
  const samples: Array<[string, unknown]> = [
    ["http_request", { url: "https://example.com/a?b=1" }],
    ["http_request", { url: "ftp://example.com" }],
    ["http_request", { url: "https://example.com", method: "TRACE" }],
    ["read_file", { path: "src/a.ts", offset: 1, limit: 50 }],
    ["read_file", { path: "src/a.ts", extra: true }],
    ["read_file", {}],
    ["put_artifact", { content: "# notes", mimeType: "text/markdown; charset=utf-8" }],
    ["put_artifact", { content: "x", mimeType: "markdown" }],
    ["create_role", { name: "analyst", rolePrompt: "You analyse data.", toolGroups: ["workspace"] }],
    ["create_role", { name: "analyst" }],
    ["get_context_status", {}],
    ["get_context_status", { verbose: true }],
  ];
  const validators = new Map(allTools.map((t) => [t.function.name, ajv.compile(t.function.parameters)]));
  for (const [name, args] of samples) {
    const expected = accepts(name, args);
    expect(validators.get(name)?.(args), `${name} ${JSON.stringify(args)}`).toBe(expected);
  }
});

test("parameters - are strict object schemas without $schema", () => {
  for (const tool of allTools) {
    const { parameters } = tool.function;
    expect(parameters.type, tool.function.name).toBe("object");
    expect(parameters.additionalProperties, tool.function.name).toBe(false);
    expect(parameters, tool.function.name).not.toHaveProperty("$schema");
  }
});

test("parameters - every property has a description", () => {
  for (const tool of allTools) {
    const properties = (tool.function.parameters.properties ?? {}) as Record<string, { description?: string }>;
    for (const [key, property] of Object.entries(properties)) {
      expect(property.description, `${tool.function.name}.${key}`).toEqual(expect.any(String));
    }
  }
});

test("read_file - requires path only", () => {
  expect(toolNamed("read_file").function.parameters.required).toEqual(["path"]);
});

test("run_command - requires command only", () => {
  expect(toolNamed("run_command").function.parameters.required).toEqual(["command"]);
});

test("http_request - requires url only and offers the HTTP methods", () => {
  const { parameters } = toolNamed("http_request").function;
  expect(parameters.required).toEqual(["url"]);
  const properties = parameters.properties as Record<string, { enum?: string[] }>;
  expect(properties.method?.enum).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
});

test("create_role - requires name and rolePrompt and tells the model to choose toolGroups", () => {
  const { parameters, description } = toolNamed("create_role").function;
  expect(parameters.required).toEqual(["name", "rolePrompt"]);
  expect(parameters.properties).toHaveProperty("toolGroups");
  expect(description).toContain("toolGroups");
  expect(description).toMatch(/every group/);
});

test("get_workspace_info - takes no arguments", () => {
  const { parameters } = toolNamed("get_workspace_info").function;
  expect(parameters.properties).toEqual({});
  expect(parameters.required).toBeUndefined();
});

test("descriptions - every tool and group has at least 40 characters", () => {
  for (const tool of allTools) expect(tool.function.description.length, tool.function.name).toBeGreaterThanOrEqual(40);
  for (const group of builtinGroups()) expect(group.description.length, group.id).toBeGreaterThanOrEqual(40);
});

test("BUILTIN_GROUPS - is JSON-serialisable", () => {
  expect(JSON.parse(JSON.stringify(builtinGroups()))).toEqual(builtinGroups());
});

test("builtinGroups - made once, the same every time", () => {
  expect(builtinGroups()).toBe(builtinGroups());
});

test("parse - refuses unknown keys", () => {
  expect(accepts("read_file", { path: "a.txt", extra: 1 })).toBe(false);
  expect(accepts("get_context_status", { anything: true })).toBe(false);
});

test("parse - applies defaults and bounds values", () => {
  expect(defined.get("http_request")!.parse({ url: "https://example.com" })).toMatchObject({ ok: true, value: { method: "GET" } });
  expect(accepts("http_request", { url: "file:///etc/passwd" })).toBe(false);
  expect(accepts("run_command", { command: "ls", timeoutMs: 0 })).toBe(false);
  expect(accepts("run_command", { command: "ls", timeoutMs: 10_000_000 })).toBe(false);
});
