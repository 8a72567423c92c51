import { expect, test } from "vitest";
import { agentFixture, roleFixture } from "../../../../test/support/fixtures";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import type { Group } from "../group/schema";
import { ToolGroupManager } from "../group/manager";
import { effectiveToolGroups } from "../role/index";
import type { ToolDefinition } from "../tool/schema";
import type { Access } from "./index";
import { decide, deferredTools, listedTools, visibleTools } from "./index";

const NOW = "2024-01-01T00:00:00.000Z";

const tool = (name: string, policy?: ToolDefinition["x-toolgate"]): ToolDefinition => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters: { type: "object" } },
  ...(policy ? { "x-toolgate": policy } : {}),
});

const group = (id: string, tools: ToolDefinition[]): Group => ({
  id,
  description: `The ${id} group.`,
  tools,
  reserved: false,
  source: "api",
  registeredAt: NOW,
  updatedAt: NOW,
});

const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
manager.registerGroup(group("chrome", [tool("open_tab", { dangerous: true }), tool("close_tab")]));
manager.registerGroup(group("files", [tool("read_it")]));
manager.registerGroup(group("search", [tool("find_code")]));

const agent = agentFixture("agt_1", "rol_1", "worker");

function accessWith(toolGroups: string[] | null): Access {
  const role = roleFixture("rol_1", toolGroups, "browser");
  return { agent, role, manager, overrides: new Map(), policies: new Map(), revision: 1, groups: effectiveToolGroups(role, manager), scopes: ["system"], layers: [], complete: true };
}

test("decide - allows a tool in the role's groups with its group and full definition", () => {
  const decision = decide(accessWith(["chrome"]), "open_tab");
  expect(decision.allowed).toBe(true);
  if (!decision.allowed) return;
  expect(decision.group.id).toBe("chrome");
  expect(decision.definition).toEqual(tool("open_tab", { dangerous: true }));
});

test("decide - refuses a tool outside the role's groups with tool_not_available naming it", () => {
  const decision = decide(accessWith(["chrome"]), "read_it");
  expect(decision.allowed).toBe(false);
  if (decision.allowed) return;
  expect(decision.group).toBe("files");
  expect(decision.error.status).toBe(403);
  expect(decision.error.code).toBe("tool_not_available");
  expect(decision.error.details).toMatchObject({ toolName: "read_it", recoverable: false });
  expect(decision.error.message).toContain('"read_it"');
  expect(decision.error.message).toContain("browser");
  expect(decision.error.toBody()).toMatchObject({ error: "tool_not_available", toolName: "read_it" });
});

test("decide - refuses an unknown tool with unknown_tool", () => {
  for (const name of ["no_such_tool", "OPEN_TAB"]) {
    const decision = decide(accessWith(null), name);
    expect(decision.allowed, name).toBe(false);
    if (decision.allowed) return;
    expect(decision.group).toBeNull();
    expect(decision.error.status).toBe(404);
    expect(decision.error.code).toBe("unknown_tool");
    expect(decision.error.message).toContain(name);
  }
});

test("decide - a role with no groups named may call every tool", () => {
  for (const toolGroups of [null, []])
    for (const name of ["open_tab", "close_tab", "read_it", "find_code"]) expect(decide(accessWith(toolGroups), name).allowed, name).toBe(true);
});

test("decide - a role naming only unregistered groups may call nothing", () => {
  for (const name of ["open_tab", "read_it", "find_code"]) {
    const decision = decide(accessWith(["ghost"]), name);
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) expect(decision.error.code).toBe("tool_not_available");
  }
});

test("visibleTools - lists exactly the role's groups' tools without x-toolgate", () => {
  const tools = visibleTools(accessWith(["search", "chrome"]));
  expect(tools.map((t) => t.function.name)).toEqual(["find_code", "open_tab", "close_tab"]);
  for (const t of tools) expect(t).not.toHaveProperty("x-toolgate");
  expect(visibleTools(accessWith(["ghost"]))).toEqual([]);
});

test("visibleTools - agrees with decide for every tool", () => {
  for (const toolGroups of [null, ["chrome"], ["files", "search"], ["ghost"]]) {
    const access = accessWith(toolGroups);
    const visible = new Set(visibleTools(access).map((t) => t.function.name));
    for (const name of ["open_tab", "close_tab", "read_it", "find_code", "missing"])
      expect(decide(access, name).allowed, `${name} for ${JSON.stringify(toolGroups)}`).toBe(visible.has(name));
  }
});

function searching(toolGroups: string[] | null, pinnedTools: string[]): Access {
  const role = { ...roleFixture("rol_2", toolGroups, "searcher"), toolLoading: "search" as const, pinnedTools };
  return { agent, role, manager, overrides: new Map(), policies: new Map(), revision: 1, groups: effectiveToolGroups(role, manager), scopes: ["system"], layers: [], complete: true };
}

const namesOf = (allowed: ReturnType<typeof listedTools>) => allowed.map(({ definition }) => definition.function.name);

test("decide - search_tools and call_tool are every agent's, in the tool_search group, whatever its role's groups", () => {
  for (const access of [accessWith(["chrome"]), accessWith(["ghost"]), searching(null, [])])
    for (const name of ["search_tools", "call_tool"]) {
      const decision = decide(access, name);
      expect(decision.allowed).toBe(true);
      if (decision.allowed) expect(decision.group.id).toBe("tool_search");
    }
  expect(decide(accessWith(["chrome"]), "SEARCH_TOOLS").allowed).toBe(false);
});

test("listedTools - loading all lists what decide allows in the role's groups; search mode lists the pins it allows, then the meta tools", () => {
  expect(namesOf(listedTools(accessWith(["chrome"])))).toEqual(["open_tab", "close_tab"]);
  const access = searching(["chrome", "search"], ["close_tab", "read_it", "missing"]);
  expect(namesOf(listedTools(access))).toEqual(["close_tab", "search_tools", "call_tool"]);
  expect(namesOf(deferredTools(access))).toEqual(["open_tab", "find_code"]);
  expect(deferredTools(accessWith(["chrome"]))).toEqual([]);
});

test("listedTools - in search mode, every tool the agent may call is listed or deferred, and every listed tool may be called", () => {
  for (const [groups, pins] of [[null, []], [["chrome"], ["open_tab"]], [["files", "search"], ["find_code", "open_tab"]], [["ghost"], ["read_it"]]] as const) {
    const access = searching(groups === null ? null : [...groups], [...pins]);
    const listed = namesOf(listedTools(access));
    const reachable = new Set([...listed, ...namesOf(deferredTools(access))]);
    for (const name of listed) expect(decide(access, name).allowed, name).toBe(true);
    for (const name of ["open_tab", "close_tab", "read_it", "find_code", "missing"])
      expect(reachable.has(name), `${name} for ${JSON.stringify(groups)}`).toBe(decide(access, name).allowed);
  }
});
