import { expect, test } from "vitest";
import { ToolgateError } from "../error";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { HttpExecutor } from "../executor/schema";
import { GroupInput } from "./schema";
import { summarise } from "./views";
import { ToolGroupManager } from "./manager";
import { parseOr } from "../validation";
import { GROUP_ERRORS } from "./errors";
import { parseGroupId, planRegistration } from "./register";

const tool = (name: string, parameters: Record<string, unknown> = { type: "object", properties: {} }) => ({
  type: "function" as const,
  function: { name, description: `The ${name} tool.`, parameters },
});

const input = (overrides: Record<string, unknown> = {}) => ({ description: "Browser tools.", tools: [tool("open_tab")], ...overrides });

const accepts = (value: unknown) => GroupInput.safeParse(value).success;

function thrown(run: () => unknown): ToolgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgateError);
    return error as ToolgateError;
  }
  throw new Error("expected a ToolgateError, nothing was thrown");
}

const NOW = "2024-01-01T00:00:00.000Z";
const LATER = "2024-02-01T00:00:00.000Z";

test("GroupInput - accepts a group with tools and an http executor", () => {
  const value = input({ executor: { type: "http", url: "https://tools.example.com/run", timeoutMs: 1000 } });
  expect(GroupInput.parse(value)).toEqual(value);
});

test("GroupInput - refuses a blank description, no tools and unknown keys", () => {
  expect(accepts(input({ description: "" }))).toBe(false);
  expect(accepts(input({ description: "   " }))).toBe(false);
  expect(accepts(input({ tools: [] }))).toBe(false);
  expect(accepts({ tools: [tool("a")] })).toBe(false);
  expect(accepts(input({ id: "chrome" }))).toBe(false);
});

test("GroupInput - refuses tools with bad names", () => {
  for (const name of ["", "has space", "a".repeat(65), "dot.name", "naïve"]) expect(accepts(input({ tools: [tool(name)] })), name).toBe(false);
});

test("GroupInput - refuses parameters that are not type object", () => {
  expect(accepts(input({ tools: [tool("a", { type: "string" })] }))).toBe(false);
  expect(accepts(input({ tools: [tool("a", { properties: {} })] }))).toBe(false);
});

test("GroupInput - refuses the same tool name twice in a group, in any case", () => {
  for (const second of ["open_tab", "OPEN_TAB", "Open_Tab"]) {
    const result = GroupInput.safeParse(input({ tools: [tool("open_tab"), tool("close_tab"), tool(second)] }));
    expect(result.success, second).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toContainEqual(["tools", 2, "function", "name"]);
    expect(result.error?.issues.map((issue) => issue.message).join(" ")).toContain(second);
  }
});

test("GroupInput - accepts an executor URL only when it is http or https", () => {
  for (const url of ["http://127.0.0.1:8080/run", "https://tools.example.com", "HTTPS://Tools.Example.com/x"])
    expect(accepts(input({ executor: { type: "http", url } })), url).toBe(true);
  for (const url of ["ftp://tools.example.com", "file:///etc/passwd", "javascript:alert(1)", "ws://x.example.com", "not a url", "", "//x.example.com"])
    expect(accepts(input({ executor: { type: "http", url } })), url).toBe(false);
});

test("HttpExecutor - takes headers; refuses unknown types, keys, out-of-range timeouts and the call token's header", () => {
  expect(HttpExecutor.safeParse({ type: "http", url: "https://x.example.com", headers: { "X-Team": "blue", Authorization: { secret: "TOKEN" } } }).success).toBe(true);
  expect(HttpExecutor.safeParse({ type: "http", url: "https://x.example.com", headers: { "toolgate-call": "forged" } }).success).toBe(false);
  expect(HttpExecutor.safeParse({ type: "http", url: "https://x.example.com", timeoutMs: 0 }).success).toBe(false);
  expect(HttpExecutor.safeParse({ type: "http", url: "https://x.example.com", timeoutMs: 900_001 }).success).toBe(false);
  expect(HttpExecutor.safeParse({ type: "http", url: "https://x.example.com", toolPrefix: "gh" }).success).toBe(false);
  expect(accepts(input({ executor: { type: "lambda", url: "https://x.example.com" } }))).toBe(false);
});

test("GroupInput - an invalid group is invalid_group_def with a detail per problem", () => {
  const error = thrown(() => parseOr(GroupInput, input({ tools: [tool("bad name")] }), GROUP_ERRORS, "invalid_group_def", "The group definition"));
  expect(error.status).toBe(400);
  expect(error.code).toBe("invalid_group_def");
  expect(error.details.details).toContainEqual(expect.objectContaining({ path: "tools.0.function.name" }));
});

test("parseGroupId - returns a well-formed, unreserved id", () => {
  expect(parseGroupId("chrome")).toBe("chrome");
  expect(parseGroupId("a".repeat(64))).toBe("a".repeat(64));
});

test("parseGroupId - refuses a malformed id with invalid_group_def", () => {
  for (const id of ["", "a b", "a".repeat(65), 42, undefined]) {
    const error = thrown(() => parseGroupId(id));
    expect(error.code, String(id)).toBe("invalid_group_def");
    expect(error.status).toBe(400);
  }
});

test("parseGroupId - refuses every reserved id with reserved_group_id", () => {
  for (const id of RESERVED_GROUP_IDS) {
    const error = thrown(() => parseGroupId(id));
    expect(error.code, id).toBe("reserved_group_id");
    expect(error.status).toBe(409);
    expect(error.message).toContain(id);
  }
});

test("planRegistration - builds a new group from the input and registration", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  const outcome = planRegistration(manager, "chrome", input(), { source: "module", module: "chrome-mod", now: NOW });
  expect(outcome).toEqual({
    replaced: false,
    group: { ...input(), id: "chrome", reserved: false, source: "module", module: "chrome-mod", registeredAt: NOW, updatedAt: NOW },
  });
  expect(manager.getGroup("chrome")).toBeUndefined();
});

test("planRegistration - a replacement warns duplicate_group_id and keeps the first registration time", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  manager.registerGroup(planRegistration(manager, "chrome", input(), { source: "api", now: NOW }).group);
  const outcome = planRegistration(manager, "chrome", input({ description: "New." }), { source: "api", now: LATER });
  expect(outcome.replaced).toBe(true);
  expect(outcome.warning).toBe("duplicate_group_id");
  expect(outcome.group.registeredAt).toBe(NOW);
  expect(outcome.group.updatedAt).toBe(LATER);
  expect(outcome.group.description).toBe("New.");
});

test("planRegistration - refuses a tool owned by another group, naming the tool and the owner", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  manager.registerGroup(planRegistration(manager, "chrome", input(), { source: "api", now: NOW }).group);
  const error = thrown(() => planRegistration(manager, "firefox", input({ tools: [tool("Open_Tab")] }), { source: "api", now: NOW }));
  expect(error.status).toBe(409);
  expect(error.code).toBe("tool_name_conflict");
  expect(error.details).toMatchObject({ toolName: "Open_Tab", ownerGroup: "chrome", groupId: "firefox" });
  expect(error.message).toContain("Open_Tab");
  expect(error.message).toContain("chrome");
});

test("planRegistration - refuses reserved ids from the API and modules but not from the built-in source", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  for (const source of ["api", "module"] as const) {
    const error = thrown(() => planRegistration(manager, "artifact", input(), { source, now: NOW }));
    expect(error.code).toBe("reserved_group_id");
    expect(error.status).toBe(409);
  }
  const builtin = planRegistration(manager, "artifact", input(), { source: "builtin", now: NOW });
  expect(builtin.group.reserved).toBe(true);
  expect(builtin.group.source).toBe("builtin");
});

test("summarise - gives the tool count and names in order", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  const { group } = planRegistration(manager, "chrome", input({ tools: [tool("b_tool"), tool("a_tool")] }), { source: "api", now: NOW });
  expect(summarise(group)).toEqual({
    id: "chrome",
    scope: "system",
    description: "Browser tools.",
    toolCount: 2,
    tools: ["b_tool", "a_tool"],
    reserved: false,
    source: "api",
    executor: null,
    updatedAt: NOW,
  });
});

test("summarise - names the executor by type and URL, never its headers", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  const executor = { type: "mcp" as const, url: "https://mcp.example.com/v1", headers: { Authorization: { secret: "GITHUB_TOKEN", prefix: "Bearer " }, "X-Team": "team-header-value" } };
  const { group } = planRegistration(manager, "remote", input({ executor }), { source: "api", now: NOW });
  const summary = summarise(group);
  expect(summary.executor).toEqual({ type: "mcp", url: "https://mcp.example.com/v1" });
  expect(JSON.stringify(summary)).not.toMatch(/team-header-value|GITHUB_TOKEN|Authorization|Bearer/);
  const client = planRegistration(manager, "inside", input({ executor: { type: "client" } }), { source: "api", now: NOW });
  expect(summarise(client.group).executor).toEqual({ type: "client" });
});
