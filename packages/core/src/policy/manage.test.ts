import { expect, test } from "vitest";
import type { Db } from "../dynamo/client";
import { RESERVED_GROUP_IDS } from "../builtin/ids";
import { ToolGroupManager } from "../group/manager";
import type { Group } from "../group/schema";
import type { GroupScope, Scope } from "../scope/schema";
import { checkPolicy } from "./manage";
import type { ShortRule } from "./schema";

const NOW = "2024-01-01T00:00:00.000Z";
const STRING = { type: "string" };

const httpRequest = (properties: Record<string, unknown>) => ({
  type: "function" as const,
  function: { name: "http_request", description: "Sends a request.", parameters: { type: "object", properties, required: Object.keys(properties) } },
});

const group = (id: string, scope: GroupScope, properties: Record<string, unknown>): Group => ({
  id,
  description: `The ${id} group.`,
  scope,
  tools: [httpRequest(properties)],
  reserved: false,
  source: "api",
  registeredAt: NOW,
  updatedAt: NOW,
});

/** Everyone's http_request takes url and method, the payments department's url and proxy, the ops department's url as an integer. */
const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
manager.registerGroup(group("web", "system", { url: STRING, method: STRING }));
manager.registerGroup(group("payments-web", "department:payments", { url: STRING, proxy: STRING }));
manager.registerGroup(group("ops-web", "department:ops", { url: { type: "integer" } }));

/** A system or department scope names no role or agent, so the store is not read. */
const NO_DB = {} as Db;

const check = (scope: Scope, rule: Omit<ShortRule, "tool" | "effect">) =>
  checkPolicy({ db: NO_DB, manager }, "p", { scope, mode: "enforce", rule: { tool: "http_request", effect: "deny", ...rule } });

test("checkPolicy - a short rule reads the definition of its own scope's layer, and tests for an argument another layer's lacks", async () => {
  const checked = await check("department:payments", { argument: "proxy", match: "*corp*" });
  expect(checked.problems).toEqual([]);
  expect(checked.cedar).toContain('context.input has "proxy" && context.input["proxy"] like "*corp*"');
  expect((await check("system", { argument: "proxy", match: "*corp*" })).problems).toEqual([{ message: 'The tool "http_request" has no argument "proxy".' }]);
});

test("checkPolicy - a short rule about an argument every definition it meets requires does not test for it", async () => {
  const checked = await check("department:payments", { argument: "url", match: "*internal*" });
  expect(checked.problems).toEqual([]);
  expect(checked.cedar).toContain('when { context.input["url"] like "*internal*" }');
});

test("checkPolicy - a short rule is validated in each layer it meets, a problem only a narrower one has naming it", async () => {
  const checked = await check("system", { argument: "method", match: "DELETE" });
  expect(checked.problems).toEqual([]);
  expect(checked.cedar).toContain('context.input has "method"');
  expect((await check("system", { argument: "url", match: "*internal*" })).problems.map((problem) => problem.message)).toEqual([
    "unexpected type: expected String but saw Long (as department:ops defines http_request)",
  ]);
});
