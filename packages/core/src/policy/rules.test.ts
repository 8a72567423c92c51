import { expect, test } from "vitest";
import type { ToolDefinition } from "../tool/schema";
import type { ToolPolicy } from "./schema";
import { effectivePolicy, layeredPolicy, needsConfirmation, overrideKey, permissionProblem, tightened } from "./rules";
import type { PolicyOverride } from "./schema";

type Subject = { role: string; department: string | null; level: number | null };

const allowed = (policy: ToolPolicy, subject: Subject) =>
  permissionProblem(policy, { name: subject.role }, { department: subject.department, level: subject.level }) === null;

const anyone: Subject = { role: "Writer", department: "sales", level: 3 };

test("permissionProblem - an empty policy lets every agent use the tool, even with no department or level", () => {
  expect(allowed({}, anyone)).toBe(true);
  expect(allowed({}, { role: "x", department: null, level: null })).toBe(true);
  expect(allowed({ allowedRoles: [], allowedDepartments: [] }, { role: "x", department: null, level: null })).toBe(true);
});

test("permissionProblem - allowedRoles matches the role name in any case", () => {
  const cases: Array<[string[], string, boolean]> = [
    [["Reviewer"], "Reviewer", true],
    [["Reviewer"], "reviewer", true],
    [["reviewer"], "REVIEWER", true],
    [["Data Analyst", "reviewer"], "data analyst", true],
    [["Reviewer"], "Writer", false],
    [["Reviewer"], "Reviewers", false],
    [["Reviewer"], "Review", false],
  ];
  for (const [allowedRoles, role, expected] of cases)
    expect(allowed({ allowedRoles }, { ...anyone, role }), `${JSON.stringify(allowedRoles)} vs ${role}`).toBe(expected);
});

test("permissionProblem - allowedDepartments needs the agent's department among them; a missing department is refused", () => {
  const cases: Array<[string | null, boolean]> = [
    ["finance", true],
    ["legal", true],
    ["sales", false],
    [null, false],
  ];
  for (const [department, expected] of cases)
    expect(allowed({ allowedDepartments: ["finance", "legal"] }, { ...anyone, department }), String(department)).toBe(expected);
});

test("permissionProblem - minLevel needs a level at or above it; a missing level is refused", () => {
  const cases: Array<[number | null, boolean]> = [
    [5, true],
    [6, true],
    [4, false],
    [0, false],
    [null, false],
  ];
  for (const [level, expected] of cases) expect(allowed({ minLevel: 5 }, { ...anyone, level }), String(level)).toBe(expected);
  expect(allowed({ minLevel: 0 }, { ...anyone, level: 0 })).toBe(true);
  expect(allowed({ minLevel: 0 }, { ...anyone, level: null })).toBe(false);
});

test("permissionProblem - every rule must pass together", () => {
  const policy: ToolPolicy = { allowedRoles: ["ops"], allowedDepartments: ["infra"], minLevel: 2 };
  expect(allowed(policy, { role: "Ops", department: "infra", level: 2 })).toBe(true);
  expect(allowed(policy, { role: "dev", department: "infra", level: 2 })).toBe(false);
  expect(allowed(policy, { role: "ops", department: "web", level: 2 })).toBe(false);
  expect(allowed(policy, { role: "ops", department: "infra", level: 1 })).toBe(false);
});

test("permissionProblem - the reason names what failed and what the agent has", () => {
  expect(permissionProblem({ allowedRoles: ["auditor"] }, { name: "intern" }, { department: null, level: null })).toMatch(
    /auditor.*"intern"/,
  );
  expect(permissionProblem({ allowedDepartments: ["finance"] }, { name: "a" }, { department: null, level: null })).toMatch(
    /finance.*not set/,
  );
  expect(permissionProblem({ allowedDepartments: ["finance"] }, { name: "a" }, { department: "sales", level: null })).toMatch(
    /finance.*"sales"/,
  );
  expect(permissionProblem({ minLevel: 4 }, { name: "a" }, { department: null, level: null })).toMatch(/level 4.*not set/);
  expect(permissionProblem({ minLevel: 4 }, { name: "a" }, { department: null, level: 1 })).toMatch(/level 4.*1/);
});

const definition = (policy?: ToolPolicy): ToolDefinition => ({
  type: "function",
  function: { name: "t", description: "A tool.", parameters: { type: "object", properties: {} } },
  ...(policy ? { "x-toolgate": policy } : {}),
});

const override = (fields: Omit<PolicyOverride, "updatedAt">): PolicyOverride => ({ ...fields, updatedAt: "2024-01-01T00:00:00.000Z" });

test("effectivePolicy - is the definition's x-toolgate, enabled, when there is no override", () => {
  expect(effectivePolicy(definition(), undefined)).toEqual({ disabled: false });
  expect(effectivePolicy(definition({ dangerous: true, rateLimit: { perMinute: 2 } }), undefined)).toEqual({
    dangerous: true,
    rateLimit: { perMinute: 2 },
    disabled: false,
  });
});

test("effectivePolicy - an override wins field by field and keeps the fields it does not name", () => {
  const base = definition({ dangerous: true, timeoutMs: 1000, rateLimit: { perMinute: 2 }, tags: ["a"] });
  expect(effectivePolicy(base, override({ policy: { dangerous: false, minLevel: 3 } }))).toEqual({
    dangerous: false,
    timeoutMs: 1000,
    rateLimit: { perMinute: 2 },
    tags: ["a"],
    minLevel: 3,
    disabled: false,
  });
  expect(effectivePolicy(base, override({ policy: { rateLimit: { perHour: 10 } } })).rateLimit).toEqual({ perHour: 10 });
});

test("effectivePolicy - disabled comes from the override alone and does not drop the policy", () => {
  const base = definition({ requireConfirmation: true });
  expect(effectivePolicy(base, override({ disabled: true }))).toEqual({ requireConfirmation: true, disabled: true });
  expect(effectivePolicy(base, override({ disabled: false, policy: { strict: true } }))).toEqual({
    requireConfirmation: true,
    strict: true,
    disabled: false,
  });
  expect(effectivePolicy(base, override({ policy: {} })).disabled).toBe(false);
});

test("effectivePolicy - does not mutate the definition", () => {
  const base = definition({ dangerous: true });
  effectivePolicy(base, override({ policy: { dangerous: false }, disabled: true }));
  expect(base["x-toolgate"]).toEqual({ dangerous: true });
});

test("needsConfirmation - dangerous or requireConfirmation, and nothing else", () => {
  const cases: Array<[ToolPolicy, boolean]> = [
    [{}, false],
    [{ dangerous: true }, true],
    [{ requireConfirmation: true }, true],
    [{ dangerous: true, requireConfirmation: false }, true],
    [{ dangerous: false, requireConfirmation: true }, true],
    [{ dangerous: false, requireConfirmation: false }, false],
    [{ rateLimit: { perMinute: 1 }, minLevel: 9, strict: true }, false],
  ];
  for (const [policy, expected] of cases) expect(needsConfirmation(policy), JSON.stringify(policy)).toBe(expected);
});

const layered = (wider: ToolDefinition["x-toolgate"], narrower: PolicyOverride["policy"], disabled?: boolean) =>
  tightened({ ...(wider ?? {}), disabled: false }, { ...(narrower ? { policy: narrower } : {}), ...(disabled !== undefined ? { disabled } : {}), updatedAt: "now" });

test("tightened - a narrower layer lowers limits and adds confirmation, never the other way", () => {
  expect(layered({ rateLimit: { perMinute: 10 }, timeoutMs: 5_000, repeatLimit: 3 }, { rateLimit: { perMinute: 60, perHour: 100 }, timeoutMs: 60_000, repeatLimit: 0 })).toEqual({
    rateLimit: { perMinute: 10, perHour: 100 },
    timeoutMs: 5_000,
    repeatLimit: 3,
    disabled: false,
  });
  expect(layered({ requireConfirmation: true, dangerous: true, strict: true }, { requireConfirmation: false, dangerous: false, strict: false })).toMatchObject({ requireConfirmation: true, dangerous: true, strict: true });
  expect(layered({}, { requireConfirmation: true, minLevel: 2 })).toMatchObject({ requireConfirmation: true, minLevel: 2 });
  expect(layered({ minLevel: 3 }, { minLevel: 1 }).minLevel).toBe(3);
  expect(layered({ allowedRoles: ["a", "b"] }, { allowedRoles: ["b", "c"] }).allowedRoles).toEqual(["b"]);
  expect(layered({ commandArguments: ["cmd"] }, { commandArguments: ["script"] }).commandArguments).toEqual(["cmd", "script"]);
  expect(layered({}, {}, true).disabled).toBe(true);
  expect(tightened({ disabled: true }, { disabled: false, updatedAt: "now" }).disabled).toBe(true);
});

test("layeredPolicy - everyone's override, then the department's and the agent's in turn; other scopes' overrides are not read", () => {
  const definition: ToolDefinition = { type: "function", function: { name: "fetch_it", description: "Fetch.", parameters: { type: "object" } }, "x-toolgate": { rateLimit: { perMinute: 30 } } };
  const overrides = new Map<string, PolicyOverride>([
    ["fetch_it", { policy: { rateLimit: { perMinute: 20 } }, updatedAt: "now" }],
    [overrideKey("fetch_it", "department:eng"), { policy: { rateLimit: { perMinute: 10 }, requireConfirmation: true }, updatedAt: "now" }],
    [overrideKey("fetch_it", "agent:agt_1"), { disabled: true, updatedAt: "now" }],
    [overrideKey("fetch_it", "department:ops"), { policy: { rateLimit: { perMinute: 1 } }, updatedAt: "now" }],
  ]);
  expect(layeredPolicy(definition, overrides, [])).toEqual({ rateLimit: { perMinute: 20 }, disabled: false });
  expect(layeredPolicy(definition, overrides, ["department:eng"])).toEqual({ rateLimit: { perMinute: 10 }, requireConfirmation: true, disabled: false });
  expect(layeredPolicy(definition, overrides, ["department:eng", "agent:agt_1"])).toMatchObject({ rateLimit: { perMinute: 10 }, disabled: true });
});
