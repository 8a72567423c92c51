import { expect, test } from "vitest";
import type { ToolDefinition } from "../tool/schema";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import type { Group, GroupSource } from "./schema";
import { ToolGroupManager } from "./manager";

const NOW = "2024-01-01T00:00:00.000Z";

const tool = (name: string, policy?: ToolDefinition["x-toolgate"]): ToolDefinition => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties: {} } },
  ...(policy ? { "x-toolgate": policy } : {}),
});

const group = (id: string, tools: Array<string | ToolDefinition>, source: GroupSource = "api"): Group => ({
  id,
  description: `The ${id} group.`,
  tools: tools.map((t) => (typeof t === "string" ? tool(t) : t)),
  reserved: source === "builtin",
  source,
  registeredAt: NOW,
  updatedAt: NOW,
});

const managerWith = (...groups: Group[]) => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  for (const g of groups) expect(manager.registerGroup(g)).toMatchObject({ ok: true });
  return manager;
};

test("registerGroup - registers a new group without a warning", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  const result = manager.registerGroup(group("chrome", ["open_tab", "close_tab"]));
  expect(result).toEqual({ ok: true, replaced: false });
  expect(manager.getGroup("chrome")?.tools.map((t) => t.function.name)).toEqual(["open_tab", "close_tab"]);
  expect(manager.getToolGroup("open_tab")).toBe("chrome");
  expect(manager.getToolGroup("close_tab")).toBe("chrome");
  expect(manager.size).toBe(1);
});

test("registerGroup - replaces a group with the same id and warns duplicate_group_id", () => {
  const manager = managerWith(group("chrome", ["open_tab", "close_tab"]));
  const replacement = group("chrome", ["open_tab", "reload_tab"]);
  expect(manager.registerGroup(replacement)).toEqual({ ok: true, replaced: true, warning: "duplicate_group_id" });
  expect(manager.getGroup("chrome")).toBe(replacement);
  expect(manager.size).toBe(1);
  expect(manager.getToolGroup("reload_tab")).toBe("chrome");
  expect(manager.getToolGroup("open_tab")).toBe("chrome");
  expect(manager.getToolGroup("close_tab")).toBeNull();
  expect(manager.findTool("close_tab")).toBeUndefined();
});

test("registerGroup - a tool dropped by a replacement can then be claimed by another group", () => {
  const manager = managerWith(group("chrome", ["open_tab", "close_tab"]));
  manager.registerGroup(group("chrome", ["open_tab"]));
  expect(manager.registerGroup(group("firefox", ["close_tab"]))).toEqual({ ok: true, replaced: false });
  expect(manager.getToolGroup("close_tab")).toBe("firefox");
});

test("registerGroup - refuses a tool owned by another group with tool_name_conflict naming the tool and owner", () => {
  const manager = managerWith(group("chrome", ["open_tab", "close_tab"]));
  const result = manager.registerGroup(group("firefox", ["new_window", "close_tab"]));
  expect(result).toEqual({ ok: false, error: "tool_name_conflict", toolName: "close_tab", owner: "chrome" });
  expect(manager.getGroup("firefox")).toBeUndefined();
  expect(manager.getToolGroup("new_window")).toBeNull();
  expect(manager.getToolGroup("close_tab")).toBe("chrome");
  expect(manager.size).toBe(1);
});

test("registerGroup - treats tool names case-insensitively when checking conflicts", () => {
  const manager = managerWith(group("search", ["Search"]));
  const result = manager.registerGroup(group("other", ["SEARCH"]));
  expect(result).toEqual({ ok: false, error: "tool_name_conflict", toolName: "SEARCH", owner: "search" });
  expect(manager.getGroup("other")).toBeUndefined();
  expect(manager.getToolGroup("Search")).toBe("search");
});

test("registerGroup - a group may rename the case of its own tool when replaced", () => {
  const manager = managerWith(group("search", ["search_code"]));
  expect(manager.registerGroup(group("search", ["Search_Code"]))).toMatchObject({ ok: true, replaced: true });
  expect(manager.getToolGroup("Search_Code")).toBe("search");
  expect(manager.getToolGroup("search_code")).toBeNull();
});

test("registerGroup - refuses a reserved id from a module or the API", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  for (const source of ["api", "module"] as const) {
    expect(manager.registerGroup(group("workspace", ["my_tool"], source))).toEqual({ ok: false, error: "reserved_group_id" });
  }
  expect(manager.getGroup("workspace")).toBeUndefined();
  expect(manager.getToolGroup("my_tool")).toBeNull();
});

test("registerGroup - accepts a reserved id from the built-in source", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  expect(manager.registerGroup(group("workspace", ["read_file"], "builtin"))).toEqual({ ok: true, replaced: false });
  expect(manager.getToolGroup("read_file")).toBe("workspace");
});

test("check - reports the outcome without changing the catalog", () => {
  const manager = managerWith(group("chrome", ["open_tab"]));
  expect(manager.check(group("firefox", ["new_window"]))).toEqual({ ok: true, replaced: false });
  expect(manager.check(group("chrome", ["x"]))).toEqual({ ok: true, replaced: true, warning: "duplicate_group_id" });
  expect(manager.getGroup("firefox")).toBeUndefined();
  expect(manager.getToolGroup("x")).toBeNull();
  expect(manager.getToolGroup("open_tab")).toBe("chrome");
});

test("unregisterGroup - removes the group and all of its tools", () => {
  const manager = managerWith(group("chrome", ["open_tab", "close_tab"]), group("files", ["read_it"]));
  expect(manager.unregisterGroup("chrome")).toEqual({ ok: true });
  expect(manager.getGroup("chrome")).toBeUndefined();
  expect(manager.getToolGroup("open_tab")).toBeNull();
  expect(manager.getToolGroup("close_tab")).toBeNull();
  expect(manager.getAllGroupIds()).toEqual(["files"]);
  expect(manager.getToolGroup("read_it")).toBe("files");
});

test("unregisterGroup - refuses a missing group with group_not_found", () => {
  const manager = managerWith(group("chrome", ["open_tab"]));
  expect(manager.unregisterGroup("firefox")).toEqual({ ok: false, error: "group_not_found" });
  expect(manager.getAllGroupIds()).toEqual(["chrome"]);
});

test("unregisterGroup - refuses a reserved group with reserved_group_id and keeps it", () => {
  const manager = managerWith(group("network", ["http_request"], "builtin"));
  expect(manager.unregisterGroup("network")).toEqual({ ok: false, error: "reserved_group_id" });
  expect(manager.getToolGroup("http_request")).toBe("network");
  expect(manager.unregisterGroup("console")).toEqual({ ok: false, error: "reserved_group_id" });
});

test("unregisterGroup - removes a reserved group only when allowReserved is set", () => {
  const manager = managerWith(group("network", ["http_request"], "builtin"));
  expect(manager.unregisterGroup("network", { allowReserved: true })).toEqual({ ok: true });
  expect(manager.getGroup("network")).toBeUndefined();
  expect(manager.getToolGroup("http_request")).toBeNull();
});

test("getAllGroupIds - lists every group id sorted", () => {
  const manager = managerWith(group("zeta", ["z1"]), group("alpha", ["a1"]), group("mid", ["m1"]), group("beta_2", ["b1"]));
  expect(manager.getAllGroupIds()).toEqual(["alpha", "beta_2", "mid", "zeta"]);
  expect(new ToolGroupManager().getAllGroupIds()).toEqual([]);
});

test("getToolGroup - matches the exact tool name only", () => {
  const manager = managerWith(group("search", ["search_code"]));
  expect(manager.getToolGroup("search_code")).toBe("search");
  expect(manager.getToolGroup("SEARCH_CODE")).toBeNull();
  expect(manager.getToolGroup("nothing")).toBeNull();
});

const scoped = (id: string, scope: string, tools: string[]): Group => ({ ...group(id, tools), scope });

test("scopes - a name belongs to one group per scope: a department and an agent may each bring a tool everyone has", () => {
  const manager = managerWith(group("http", ["http_request"]), scoped("eng_http", "department:eng", ["http_request"]), scoped("mine", "agent:agt_1", ["http_request", "note"]));
  expect(manager.toolsNamed("http_request").map((found) => [found.scope, found.group.id])).toEqual([
    ["agent:agt_1", "mine"],
    ["department:eng", "eng_http"],
    ["system", "http"],
  ]);
  expect(manager.findTool("http_request")?.group.id).toBe("http");
  expect(manager.findTool("note")?.group.id).toBe("mine");
  expect(manager.toolIn("department:eng", "http_request")?.group.id).toBe("eng_http");
  expect(manager.toolIn("department:ops", "http_request")).toBeUndefined();
  expect(manager.registerGroup(scoped("eng_other", "department:eng", ["http_request"]))).toEqual({ ok: false, error: "tool_name_conflict", toolName: "http_request", owner: "eng_http" });
  expect(manager.registerGroup(scoped("ops_http", "department:ops", ["http_request"]))).toMatchObject({ ok: true });
});

test("scopes - a group moved to another scope leaves its old scope's names free; removing a narrower one uncovers the wider one", () => {
  const manager = managerWith(group("http", ["http_request"]), scoped("eng_http", "department:eng", ["http_request"]));
  expect(manager.registerGroup(scoped("eng_http", "agent:agt_1", ["http_request"]))).toMatchObject({ ok: true, replaced: true });
  expect(manager.toolIn("department:eng", "http_request")).toBeUndefined();
  expect(manager.toolIn("agent:agt_1", "http_request")?.group.id).toBe("eng_http");
  expect(manager.clone().toolsNamed("http_request").map((found) => found.group.id)).toEqual(["eng_http", "http"]);
  manager.unregisterGroup("eng_http");
  expect(manager.toolsNamed("http_request").map((found) => found.group.id)).toEqual(["http"]);
});

test("findTool - returns the owning group and the full definition with its policy", () => {
  const definition = tool("open_tab", { requireConfirmation: true });
  const manager = managerWith(group("chrome", [definition]));
  const found = manager.findTool("open_tab");
  expect(found?.group.id).toBe("chrome");
  expect(found?.definition).toEqual(definition);
  expect(manager.findTool("Open_Tab")).toBeUndefined();
});

test("listGroups - summarises each group with its tool count and names", () => {
  const manager = managerWith(group("files", ["read_it", "write_it"]), group("chrome", ["open_tab"]));
  expect(manager.listGroups()).toEqual([
    { id: "chrome", scope: "system", description: "The chrome group.", toolCount: 1, tools: ["open_tab"], reserved: false, source: "api", executor: null, updatedAt: NOW },
    { id: "files", scope: "system", description: "The files group.", toolCount: 2, tools: ["read_it", "write_it"], reserved: false, source: "api", executor: null, updatedAt: NOW },
  ]);
});

test("isReserved - knows exactly the ids it was given", () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  for (const id of RESERVED_GROUP_IDS) expect(manager.isReserved(id)).toBe(true);
  expect(manager.isReserved("chrome")).toBe(false);
  expect(new ToolGroupManager().isReserved("workspace")).toBe(false);
});
