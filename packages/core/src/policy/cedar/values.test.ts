import { beforeAll, expect, test } from "vitest";
import type { CedarValueJson } from "@cedar-policy/cedar-wasm/nodejs";
import { builtinGroups } from "../../builtin/groups";
import { githubToolsets } from "../../../../../test/support/upstream-mcp";
import { cedarSchema } from "./schema";
import { cedarInput } from "./values";
import { cedar } from "./wasm";

let wasm: Awaited<ReturnType<typeof cedar>>;
beforeAll(async () => {
  wasm = await cedar();
});

const parameters = {
  type: "object",
  properties: {
    name: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    sizes: { type: "array", items: { type: "integer" } },
    options: { type: "object", properties: { depth: { type: "integer" }, label: { type: "string" } }, additionalProperties: true },
    files: { type: "array", items: { type: "object", properties: { path: { type: "string" } } } },
    headers: { type: "object", additionalProperties: { type: "string" } },
  },
  additionalProperties: true,
};

test("cedarInput - strings, booleans, integers, arrays and objects become Cedar values of the argument's type", () => {
  const args = { name: "a", count: 3, flag: false, tags: ["x", "y"], options: { depth: 2, label: "l" }, files: [{ path: "p" }] };
  expect(cedarInput(parameters, args)).toEqual(args);
});

test("cedarInput - arguments without a Cedar type, or not in the schema, are left out", () => {
  expect(cedarInput(parameters, { name: "a", ratio: 0.5, headers: { a: "b" }, extra: "x", options: { depth: 1, more: true } })).toEqual({
    name: "a",
    options: { depth: 1 },
  });
});

test("cedarInput - a value of another type, a fraction or an unsafe integer is left out, and so is such an array element", () => {
  const cases: Array<[Record<string, unknown>, Record<string, CedarValueJson>]> = [
    [{ count: 1.5 }, {}],
    [{ count: 2 ** 53 }, {}],
    [{ count: -(2 ** 53 - 1) }, { count: -(2 ** 53 - 1) }],
    [{ count: "3" }, {}],
    [{ name: 3 }, {}],
    [{ flag: "true" }, {}],
    [{ tags: "x" }, {}],
    [{ options: [1] }, {}],
    [{ options: null }, {}],
    [{ sizes: [1, 2.5, "3", 4, null, 2 ** 60] }, { sizes: [1, 4] }],
    [{ files: [{ path: "a" }, "b", null, [], { path: 1 }] }, { files: [{ path: "a" }, {}] }],
  ];
  for (const [args, expected] of cases) expect(cedarInput(parameters, args), JSON.stringify(args)).toEqual(expected);
});

test("cedarInput - keys Cedar's JSON format reads specially (__entity, __extn, __expr) never reach Cedar", () => {
  const entity = { __entity: { type: "Agent", id: "admin" } };
  const withReserved = { ...parameters, properties: { ...parameters.properties, __entity: { type: "string" }, __extn: { type: "string" } } };
  expect(cedarInput(withReserved, { name: "a", __entity: "x", __extn: "y", __expr: "z", options: { ...entity, depth: 1 } })).toEqual({ name: "a", options: { depth: 1 } });
  expect(cedarInput(parameters, { options: entity, files: [entity, { __extn: { fn: "ip", arg: "127.0.0.1" } }] })).toEqual({ options: {}, files: [{}, {}] });
});

test("cedarInput - an argument named __proto__ is an own attribute, and inherited properties are not arguments", () => {
  const oddParameters = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"toString":{"type":"string"}}}') as Record<string, unknown>;
  const converted = cedarInput(oddParameters, JSON.parse('{"__proto__":"p","toString":"t"}') as Record<string, unknown>);
  expect(Object.getPrototypeOf(converted)).toBe(Object.prototype);
  expect(JSON.stringify(converted)).toBe('{"__proto__":"p","toString":"t"}');
  expect(cedarInput(oddParameters, {})).toEqual({});
});

test("cedarInput - a lone surrogate, which cedar-wasm cannot read, becomes U+FFFD; a well-formed pair stays", () => {
  expect(cedarInput(parameters, { name: "a\ud800b😀", tags: ["\udc00"] })).toEqual({ name: "a\ufffdb😀", tags: ["\ufffd"] });
});

test("cedarInput - converts with the same result when called again for the same parameters", () => {
  const first = cedarInput(parameters, { name: "a", count: 1 });
  expect(cedarInput(parameters, { name: "a", count: 1 })).toEqual(first);
  expect(cedarInput({ ...parameters }, { name: "a", count: 1 })).toEqual(first);
});

const githubGroups = () =>
  githubToolsets().map((toolset) => ({
    id: toolset.id,
    tools: toolset.tools.map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.name, parameters: tool.inputSchema } })),
  }));

const POLICIES = `
permit (principal, action, resource);
forbid (principal, action == Action::"read_file", resource) when { context.input.path like "/etc/*" };
forbid (principal, action == Action::"create_pull_request", resource)
  when { context.input.base == "main" }
  unless { principal has level && principal.level >= 3 };
forbid (principal, action in Action::"group:gh_repositories", resource) when { context.input.owner == "secret-org" };
`;

test("isAuthorized - a call's arguments through cedarInput decide a request validated against the generated schema", () => {
  const groups = [...builtinGroups(), ...githubGroups()];
  const { schema } = cedarSchema(groups);
  const parametersOf = (name: string) => groups.flatMap((group) => group.tools).find((tool) => tool.function.name === name)!.function.parameters;
  const groupOf = (name: string) => groups.find((group) => group.tools.some((tool) => tool.function.name === name))!.id;
  const decide = (tool: string, args: Record<string, unknown>, agent: Record<string, CedarValueJson>) => {
    const answer = wasm.isAuthorized({
      principal: { type: "Agent", id: "agt_1" },
      action: { type: "Action", id: tool },
      resource: { type: "ToolGroup", id: groupOf(tool) },
      context: {
        input: cedarInput(parametersOf(tool), args),
        path: typeof args.path === "string" ? args.path : "",
        outsideWorkspace: false,
        command: "",
        program: "",
        flags: [],
        codeExecution: false,
        dynamic: false,
        commandSubstitution: false,
        forkBomb: false,
        inputBytes: JSON.stringify(args).length,
        largestStringBytes: 0,
      },
      schema,
      validateRequest: true,
      policies: { staticPolicies: POLICIES },
      entities: [
        { uid: { type: "Agent", id: "agt_1" }, attrs: { role: "Writer", roleId: "rol_1", ...agent }, parents: [] },
        { uid: { type: "ToolGroup", id: groupOf(tool) }, attrs: {}, parents: [] },
      ],
    });
    if (answer.type === "failure") throw new Error(answer.errors.map((error) => error.message).join("; "));
    return answer.response.decision;
  };
  const pr = { owner: "acme", repo: "app", title: "t", head: "feature", base: "main", draft: true, reviewers: ["x"], __entity: { type: "Agent", id: "a" } };
  expect(decide("read_file", { path: "/etc/passwd", offset: 2, limit: 1.5 }, {})).toBe("deny");
  expect(decide("read_file", { path: "src/index.ts" }, {})).toBe("allow");
  expect(decide("create_pull_request", pr, { level: 1 })).toBe("deny");
  expect(decide("create_pull_request", pr, {})).toBe("deny");
  expect(decide("create_pull_request", pr, { level: 3, department: "eng" })).toBe("allow");
  expect(decide("create_pull_request", { ...pr, base: "dev" }, { level: 1 })).toBe("allow");
  expect(decide("push_files", { owner: "secret-org", repo: "r", branch: "b", message: "m", files: [{ path: "a", content: "b" }] }, {})).toBe("deny");
  expect(decide("list_issues", { owner: "secret-org", repo: "r", perPage: 30 }, {})).toBe("allow");
});
