import { expect, test } from "vitest";
import { roleFixture } from "../../../../test/support/fixtures";
import { ToolgateError } from "../error";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import type { Group } from "../group/schema";
import { ToolGroupManager } from "../group/manager";
import { effectiveToolGroups, parseIfMatch, RoleInput, RolePatch, usesAllGroups, view } from "./index";

const NOW = "2024-01-01T00:00:00.000Z";

const group = (id: string, toolName: string): Group => ({
  id,
  description: `The ${id} group.`,
  tools: [{ type: "function", function: { name: toolName, description: "A tool.", parameters: { type: "object" } } }],
  reserved: (RESERVED_GROUP_IDS as readonly string[]).includes(id),
  source: (RESERVED_GROUP_IDS as readonly string[]).includes(id) ? "builtin" : "api",
  registeredAt: NOW,
  updatedAt: NOW,
});

const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
for (const g of [group("org_management", "spawn_agent"), group("workspace", "read_file"), group("chrome", "open_tab"), group("beta", "b_tool")])
  manager.registerGroup(g);
const ALL = ["beta", "chrome", "org_management", "workspace"];

const role = (id: string, toolGroups: string[] | null) => roleFixture(id, toolGroups);

const effectiveCases: Array<[string, string, string[] | null, string[]]> = [
  ["root is fixed to org_management", "root", ["org_management"], ["org_management"]],
  ["root ignores null", "root", null, ["org_management"]],
  ["root ignores an empty list", "root", [], ["org_management"]],
  ["root ignores other groups", "root", ["workspace", "chrome"], ["org_management"]],
  ["null means every registered group", "rol_1", null, ALL],
  ["an empty list means every registered group", "rol_1", [], ALL],
  ["named groups are kept in order", "rol_1", ["workspace", "chrome"], ["workspace", "chrome"]],
  ["unregistered groups drop out", "rol_1", ["ghost", "chrome", "gone"], ["chrome"]],
  ["only unregistered groups leave nothing", "rol_1", ["ghost"], []],
  ["a role named like a group id is not root", "org_management", ["chrome"], ["chrome"]],
];

for (const [behaviour, id, toolGroups, expected] of effectiveCases)
  test(`effectiveToolGroups - ${behaviour}`, () => {
    expect(effectiveToolGroups(role(id, toolGroups), manager)).toEqual(expected);
  });

test("effectiveToolGroups - a role with no groups named follows groups registered later", () => {
  const local = new ToolGroupManager(RESERVED_GROUP_IDS);
  local.registerGroup(group("chrome", "open_tab"));
  const everything = role("rol_2", null);
  expect(effectiveToolGroups(everything, local)).toEqual(["chrome"]);
  local.registerGroup(group("alpha", "a_tool"));
  expect(effectiveToolGroups(everything, local)).toEqual(["alpha", "chrome"]);
  expect(effectiveToolGroups(role("rol_3", []), local)).toEqual(["alpha", "chrome"]);
});

test("effectiveToolGroups - does not hand out the caller's array for root", () => {
  const first = effectiveToolGroups(role("root", null), manager);
  first.push("chrome");
  expect(effectiveToolGroups(role("root", null), manager)).toEqual(["org_management"]);
});

test("usesAllGroups - is true for null and an empty list only", () => {
  expect(usesAllGroups({ toolGroups: null })).toBe(true);
  expect(usesAllGroups({ toolGroups: [] })).toBe(true);
  expect(usesAllGroups({ toolGroups: ["chrome"] })).toBe(false);
});

test("view - adds the effective tool groups to the role", () => {
  const r = role("rol_1", ["ghost", "workspace"]);
  expect(view(r, manager)).toEqual({ ...r, effectiveToolGroups: ["workspace"] });
});

const ifMatchCases: Array<[string | undefined, number | undefined]> = [
  [undefined, undefined],
  ["3", 3],
  ['"3"', 3],
  ['W/"12"', 12],
  ["  7 ", 7],
  ["1", 1],
];

for (const [header, expected] of ifMatchCases)
  test(`parseIfMatch - reads ${JSON.stringify(header)} as ${expected}`, () => {
    expect(parseIfMatch(header)).toBe(expected);
  });

test("parseIfMatch - refuses anything but a version number with invalid_if_match", () => {
  for (const header of ["", "abc", "-1", "3.5", "1e3", '"3', "W/3x", "3, 4"]) {
    let error: unknown;
    try {
      parseIfMatch(header);
    } catch (caught) {
      error = caught;
    }
    expect(error, JSON.stringify(header)).toBeInstanceOf(ToolgateError);
    expect((error as ToolgateError).code).toBe("invalid_if_match");
    expect((error as ToolgateError).status).toBe(400);
  }
});

test("RoleInput - removes duplicate tool groups and keeps their order", () => {
  expect(RoleInput.parse({ name: "r", toolGroups: ["b", "a", "b", "c", "a"] }).toolGroups).toEqual(["b", "a", "c"]);
  expect(RoleInput.parse({ name: "r", toolGroups: null }).toolGroups).toBeNull();
  expect(RoleInput.parse({ name: "r" }).toolGroups).toBeUndefined();
  expect(RolePatch.parse({ toolGroups: ["x", "x"] }).toolGroups).toEqual(["x"]);
});

test("RoleInput - refuses malformed group ids, blank names and unknown keys", () => {
  expect(RoleInput.safeParse({ name: "r", toolGroups: ["has space"] }).success).toBe(false);
  expect(RoleInput.safeParse({ name: "  " }).success).toBe(false);
  expect(RoleInput.safeParse({ name: "r", createdBy: "me" }).success).toBe(false);
  expect(RolePatch.safeParse({ version: 0 }).success).toBe(false);
  expect(RolePatch.safeParse({ id: "root" }).success).toBe(false);
});
