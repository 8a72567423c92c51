import { beforeAll, expect, test } from "vitest";
import { RESERVED_GROUP_IDS } from "../../builtin/ids";
import { ToolGroupManager } from "../../group/manager";
import type { Group } from "../../group/schema";
import type { GroupScope, Scope } from "../../scope/schema";
import { readPolicy } from "./read";
import { catalogSchema, validateAgainstCatalog } from "./validate";
import { cedar } from "./wasm";

beforeAll(async () => {
  await cedar();
});

const NOW = "2024-01-01T00:00:00.000Z";
const STRING = { type: "string" };

const tool = (name: string, properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: "function" as const,
  function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties, required } },
});

const group = (id: string, scope: GroupScope, tools: Group["tools"]): Group => ({
  id,
  description: `The ${id} group.`,
  scope,
  tools,
  reserved: false,
  source: "api",
  registeredAt: NOW,
  updatedAt: NOW,
});

/**
 * Everyone's http_request takes url and method; the payments department's takes url and proxy (no method); the ops
 * department's takes url as an integer; agent a1's takes url alone. Only payments has payroll.
 */
const layered = () => {
  const manager = new ToolGroupManager(RESERVED_GROUP_IDS);
  const groups = [
    group("web", "system", [tool("http_request", { url: STRING, method: STRING }), tool("ping", { host: STRING })]),
    group("payments-web", "department:payments", [tool("http_request", { url: STRING, proxy: STRING }), tool("payroll", { amount: { type: "integer" } })]),
    group("ops-web", "department:ops", [tool("http_request", { url: { type: "integer" }, method: STRING })]),
    group("a1-web", "agent:a1", [tool("http_request", { url: STRING })]),
  ];
  for (const each of groups) expect(manager.registerGroup(each)).toMatchObject({ ok: true });
  return manager;
};

/** The problems' messages of one policy, validated in the catalog as given. */
async function problemsOf(manager: ToolGroupManager, cedarText: string, scope: Scope = "system"): Promise<string[]> {
  const read = await readPolicy(cedarText);
  if (!read.ok) throw new Error(read.problems.map((problem) => problem.message).join("; "));
  const problems = await validateAgainstCatalog(manager, [{ id: "p", cedar: cedarText, targets: read.read.targets, scope }]);
  return problems.get("p")!.map((problem) => problem.message);
}

const HTTP_REQUEST = 'forbid (principal, action == Action::"http_request", resource)';
const PROXY_NOT_FOUND = 'attribute `input.proxy` in context for Action::"http_request" not found';
const METHOD_NOT_FOUND = 'attribute `input.method` in context for Action::"http_request" not found';

test("validateAgainstCatalog - a policy about every tool, with a name several scopes define, is validated and does not throw", async () => {
  const manager = layered();
  expect(await problemsOf(manager, "forbid (principal, action, resource) when { context.inputBytes > 1000000 };")).toEqual([]);
  expect(await problemsOf(manager, 'forbid (principal, action, resource) when { context.input has proxy && context.input.proxy like "*corp*" };')).toEqual([]);
});

test("validateAgainstCatalog - a policy about every tool is validated against each layer's definitions", async () => {
  const manager = layered();
  expect(await problemsOf(manager, 'forbid (principal, action, resource) when { context.input has url && context.input.url like "*internal*" };')).toEqual([
    "unexpected type: expected String but saw Long (as department:ops defines http_request)",
  ]);
});

test("validateAgainstCatalog - an argument only a department's definition has must be tested for, whatever the policy's scope: the department's agents may meet everyone's", async () => {
  const manager = layered();
  const unguarded = `${HTTP_REQUEST} when { context.input.proxy like "*corp*" };`;
  expect(await problemsOf(manager, unguarded)).toEqual([PROXY_NOT_FOUND]);
  expect(await problemsOf(manager, unguarded, "department:payments")).toEqual([PROXY_NOT_FOUND]);
  const guarded = `${HTTP_REQUEST} when { context.input has proxy && context.input.proxy like "*corp*" };`;
  expect(await problemsOf(manager, guarded)).toEqual([]);
  expect(await problemsOf(manager, guarded, "department:payments")).toEqual([]);
});

test("validateAgainstCatalog - a policy valid for everyone's definition but not for a narrower one's names the layers that define it", async () => {
  const manager = layered();
  expect(await problemsOf(manager, `${HTTP_REQUEST} when { context.input.method == "DELETE" };`)).toEqual([
    `${METHOD_NOT_FOUND} (as department:payments and agent:a1 define http_request)`,
  ]);
  expect(await problemsOf(manager, `${HTTP_REQUEST} when { context.input.url like "*internal*" };`)).toEqual([
    "unexpected type: expected String but saw Long (as department:ops defines http_request)",
  ]);
});

test("validateAgainstCatalog - a tool only a department has is checked in that department's layer and named so", async () => {
  const manager = layered();
  expect(await problemsOf(manager, 'forbid (principal, action == Action::"payroll", resource) when { context.input.amount like "1*" };')).toEqual([
    "unexpected type: expected String but saw Long (as department:payments defines payroll)",
  ]);
  expect(await problemsOf(manager, 'forbid (principal, action == Action::"payroll", resource) when { context.input.amount > 100000 };')).toEqual([]);
});

test("validateAgainstCatalog - a department's policy meets no other department's definitions, an agent's no other agent's", async () => {
  const manager = layered();
  const method = `${HTTP_REQUEST} when { context.input.method == "DELETE" };`;
  expect(await problemsOf(manager, method, "department:ops")).toEqual([`${METHOD_NOT_FOUND} (as agent:a1 defines http_request)`]);
  expect(await problemsOf(manager, method, "agent:a2")).toEqual([`${METHOD_NOT_FOUND} (as department:payments defines http_request)`]);
  expect(await problemsOf(manager, `${HTTP_REQUEST} when { context.input.url like "*internal*" };`, "department:payments")).toEqual([]);
});

test("validateAgainstCatalog - a problem every layer finds is named once, without a layer; an unknown tool still is one", async () => {
  const manager = layered();
  expect(await problemsOf(manager, `${HTTP_REQUEST} when { context.input.port == 443 };`)).toEqual([
    'attribute `input.port` in context for Action::"http_request" not found',
  ]);
  expect(await problemsOf(manager, 'forbid (principal, action == Action::"nope", resource);')).toEqual(['unrecognized action `Action::"nope"`']);
});

test("validateAgainstCatalog - a policy about every tool may name an action in its conditions in every layer", async () => {
  const manager = layered();
  expect(await problemsOf(manager, 'forbid (principal, action, resource) when { action == Action::"ping" || action in Action::"group:web" };')).toEqual([]);
});

test("catalogSchema - a layer types its own definition of a name in place of everyone's, which it names without a context", () => {
  const manager = layered();
  const everyone = catalogSchema(manager, ["web"]).schema[""]!.actions;
  expect(everyone.http_request?.appliesTo?.context).toMatchObject({ attributes: { input: { attributes: { method: { type: "String" } } } } });
  const payments = catalogSchema(manager, ["payments-web", "web"], "department:payments").schema[""]!.actions;
  expect(payments.http_request?.memberOf).toEqual([{ id: "group:payments-web" }]);
  expect(payments.http_request?.appliesTo?.context).toMatchObject({ attributes: { input: { attributes: { proxy: { type: "String" } } } } });
  expect(payments.ping).toEqual({ memberOf: [{ id: "group:web" }] });
  expect(catalogSchema(manager, ["payments-web", "web"], "department:payments")).toBe(catalogSchema(manager, ["payments-web", "web"], "department:payments"));
  expect(catalogSchema(manager, ["payments-web", "web"])).not.toBe(catalogSchema(manager, ["payments-web", "web"], "department:payments"));
});
