import { expect, test } from "vitest";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { ToolGroupManager } from "../group/manager";
import type { CatalogSnapshot } from "../group/catalog";
import { ToolgateError } from "../error";
import { policyView } from "./admin";
import type { PolicyOverride } from "./schema";

const NOW = "2024-01-01T00:00:00.000Z";

function snapshotWith(overrides: Record<string, PolicyOverride> = {}): CatalogSnapshot {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  manager.registerGroup({
    id: "search",
    description: "Search things.",
    source: "api",
    reserved: false,
    registeredAt: NOW,
    updatedAt: NOW,
    tools: [
      {
        type: "function",
        function: { name: "search_code", description: "Search code.", parameters: { type: "object", properties: {} } },
        "x-toolgate": { rateLimit: { perMinute: 3 }, dangerous: true },
      },
    ],
  });
  return { version: 1, manager, overrides: new Map(Object.entries(overrides)), policies: new Map() };
}

test("policyView - shows the definition's policy, its group and no override for an untouched tool", () => {
  expect(policyView(snapshotWith(), "search_code")).toEqual({
    name: "search_code",
    group: "search",
    scope: "system",
    policy: { rateLimit: { perMinute: 3 }, dangerous: true, disabled: false },
    override: null,
  });
});

test("policyView - shows the override and the effective policy it yields", () => {
  const override: PolicyOverride = { policy: { dangerous: false }, disabled: true, updatedAt: NOW };
  expect(policyView(snapshotWith({ search_code: override }), "search_code")).toEqual({
    name: "search_code",
    group: "search",
    scope: "system",
    policy: { rateLimit: { perMinute: 3 }, dangerous: false, disabled: true },
    override,
  });
});

test("policyView - an unknown tool is a 404 unknown_tool naming it", () => {
  let caught: unknown;
  try {
    policyView(snapshotWith(), "nope");
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ToolgateError);
  expect((caught as ToolgateError).status).toBe(404);
  expect((caught as ToolgateError).toBody()).toMatchObject({ error: "unknown_tool", toolName: "nope" });
});
