import { beforeAll, expect, test } from "vitest";
import { builtinGroups } from "../../builtin/groups";
import { githubToolsets } from "../../../../../test/support/upstream-mcp";
import { MAX_CEDAR_NESTING, cedarSchema, inputType } from "./schema";
import type { CatalogSchema } from "./schema";
import { cedar } from "./wasm";

type Cedar = Awaited<ReturnType<typeof cedar>>;
let wasm: Cedar;
beforeAll(async () => {
  wasm = await cedar();
});

const githubGroups = () =>
  githubToolsets().map((toolset) => ({
    id: toolset.id,
    tools: toolset.tools.map((tool) => ({
      type: "function" as const,
      function: { name: tool.name, description: tool.description ?? tool.name, parameters: tool.inputSchema },
    })),
  }));

const catalog = () => cedarSchema([...builtinGroups(), ...githubGroups()]);

/** The validation errors of each policy, by its position: one validate call, the policies named by their index. */
const validationErrors = (catalogSchema: CatalogSchema, policies: string[]) => {
  const answer = wasm.validate({
    schema: catalogSchema.schema,
    policies: { staticPolicies: Object.fromEntries(policies.map((policy, index) => [`p${index}`, policy])) },
    validationSettings: { mode: "strict" },
  });
  if (answer.type === "failure") throw new Error(answer.errors.map((error) => error.message).join("; "));
  return policies.map((_, index) => answer.validationErrors.filter((error) => error.policyId === `p${index}`));
};

test("cedarSchema - the built-in groups give a schema Cedar parses, with an action per tool and one per group", () => {
  const { schema, unmapped } = cedarSchema(builtinGroups());
  expect(wasm.checkParseSchema(schema)).toEqual({ type: "success" });
  const actions = schema[""]!.actions;
  expect(actions["group:workspace"]).toEqual({});
  expect(actions.read_file?.memberOf).toEqual([{ id: "group:workspace" }]);
  const toolCount = builtinGroups().reduce((count, group) => count + group.tools.length, 0);
  expect(Object.keys(actions)).toHaveLength(toolCount + builtinGroups().length);
  expect(unmapped).toEqual([{ tool: "http_request", argument: "headers", reason: expect.stringContaining("is a map") }]);
});

test("cedarSchema - a tool's context holds its input and the facts the guard derives about the call", () => {
  const context = cedarSchema(builtinGroups()).schema[""]!.actions.read_file?.appliesTo;
  expect(context).toEqual({
    principalTypes: ["Agent"],
    resourceTypes: ["ToolGroup"],
    context: {
      type: "Record",
      attributes: {
        input: {
          type: "Record",
          attributes: { path: { type: "String" }, offset: { type: "Long", required: false }, limit: { type: "Long", required: false } },
        },
        path: { type: "String" },
        outsideWorkspace: { type: "Boolean" },
        command: { type: "String" },
        program: { type: "String" },
        flags: { type: "Set", element: { type: "String" } },
        codeExecution: { type: "Boolean" },
        dynamic: { type: "Boolean" },
        commandSubstitution: { type: "Boolean" },
        forkBomb: { type: "Boolean" },
        inputBytes: { type: "Long" },
        largestStringBytes: { type: "Long" },
      },
    },
  });
});

test("cedarSchema - the GitHub MCP catalog (86 tools) parses, and what cannot be mapped is reported by tool and argument", () => {
  const { schema, unmapped } = cedarSchema(githubGroups());
  expect(wasm.checkParseSchema(schema)).toEqual({ type: "success" });
  expect(Object.keys(schema[""]!.actions).filter((id) => !id.startsWith("group:"))).toHaveLength(86);
  expect(unmapped).toContainEqual({ tool: "issue_write", argument: "type", reason: "anyOf has no single Cedar type" });
  expect(unmapped).toContainEqual({
    tool: "issue_write",
    argument: "issue_fields[].value",
    reason: 'a list of types (["string","number","boolean"]) has no single Cedar type',
  });
  expect(unmapped).toContainEqual({ tool: "issue_write", argument: "duplicate_of", reason: expect.stringContaining('"number"') });
  expect(unmapped.filter((entry) => entry.reason.includes('"number"')).length).toBeGreaterThan(80);
});

test("cedarSchema - a tool name twice in the catalog is refused", () => {
  const tools = [tool("read_file", { type: "object", properties: {} })];
  expect(() => cedarSchema([{ id: "a", tools }, { id: "b", tools }])).toThrow(/"read_file" appears more than once/);
});

test("cedarSchema - a tool named __proto__ is an action like any other", () => {
  const { schema } = cedarSchema([{ id: "odd", tools: [tool("__proto__", { type: "object", properties: {} })] }]);
  expect(Object.hasOwn(schema[""]!.actions, "__proto__")).toBe(true);
  expect(wasm.checkParseSchema(schema)).toEqual({ type: "success" });
});

test("validate - policies about the built-in and GitHub tools' arguments are checked against the schema", () => {
  const schema = catalog();
  const cases: Array<[string, string | null]> = [
    ['forbid (principal, action == Action::"run_command", resource) when { context.command like "rm *" };', null],
    ['forbid (principal, action == Action::"read_file", resource) when { context.input.path like "/etc/*" };', null],
    ['forbid (principal, action == Action::"read_file", resource) when { context.input has offset && context.input.offset > 5 };', null],
    ['forbid (principal, action in Action::"group:workspace", resource) when { context.outsideWorkspace };', null],
    ['forbid (principal, action == Action::"create_pull_request", resource) when { context.input.base == "main" && context.input has draft && !context.input.draft };', null],
    ['forbid (principal, action == Action::"push_files", resource) when { context.input.files.contains({ path: ".github/workflows/ci.yml", content: "" }) };', null],
    ['forbid (principal, action, resource) unless { principal has level && principal.level >= 3 };', null],
    ['forbid (principal, action == Action::"read_file", resource) when { context.input.nope == "x" };', "attribute `input.nope` in context for Action::\"read_file\" not found"],
    ['forbid (principal, action == Action::"read_file", resource) when { context.input.path == 1 };', "the types Long and String are not compatible"],
    ['forbid (principal, action == Action::"read_fil", resource);', 'unrecognized action `Action::"read_fil"`'],
    ['forbid (principal, action == Action::"read_file", resource) when { context.input.offset > 5 };', "unable to guarantee safety of access to optional attribute `input.offset`"],
    ["forbid (principal, action, resource) when { principal.level >= 3 };", "optional attribute `level` on entity type `Agent`"],
    ['forbid (principal, action == Action::"issue_write", resource) when { context.input has duplicate_of };', null],
    ['forbid (principal, action == Action::"issue_write", resource) when { context.input.duplicate_of == 1 };', "attribute `input.duplicate_of` in context"],
  ];
  const errors = validationErrors(schema, cases.map(([policy]) => policy));
  cases.forEach(([policy, expected], index) => {
    const messages = errors[index]!.map((error) => error.error.message);
    if (expected === null) expect(messages, policy).toEqual([]);
    else expect(messages.join("\n"), policy).toContain(expected);
  });
});

test("validate - an error names the policy and points at the offending expression by character offsets", () => {
  const policy = 'forbid (principal, action == Action::"read_file", resource) when { context.input.nope == "x" };';
  const [error] = validationErrors(catalog(), [policy])[0]!;
  expect(error).toEqual({
    policyId: "p0",
    error: {
      message: 'for policy `p0`, attribute `input.nope` in context for Action::"read_file" not found',
      help: expect.stringMatching(/^did you mean `.+`\?$/),
      code: null,
      url: null,
      severity: null,
      sourceLocations: [{ label: null, start: 67, end: 85 }],
      related: [],
    },
  });
  expect(policy.slice(67, 85)).toBe("context.input.nope");
});

test("inputType - JSON Schema types map to Cedar types; only `required` properties are required", () => {
  const { type, unmapped } = inputType({
    type: "object",
    properties: {
      name: { type: "string", format: "email" },
      mode: { type: "string", enum: ["r", "w"] },
      tag: { enum: ["a", "b"] },
      fixed: { const: "x" },
      count: { type: "integer" },
      flag: { type: "boolean" },
      names: { type: "array", items: { type: "string" } },
      options: { type: "object", properties: { depth: { type: "integer" }, deep: { type: "boolean" } }, required: ["depth"], additionalProperties: { type: "string" } },
    },
    required: ["name", "names"],
    additionalProperties: true,
  });
  expect(unmapped).toEqual([]);
  expect(type).toEqual({
    type: "Record",
    attributes: {
      name: { type: "String" },
      mode: { type: "String", required: false },
      tag: { type: "String", required: false },
      fixed: { type: "String", required: false },
      count: { type: "Long", required: false },
      flag: { type: "Boolean", required: false },
      names: { type: "Set", element: { type: "String" } },
      options: {
        type: "Record",
        required: false,
        attributes: { depth: { type: "Long" }, deep: { type: "Boolean", required: false } },
      },
    },
  });
});

test("inputType - what has no Cedar type is left out of the record and reported with its path and reason", () => {
  const cases: Array<[unknown, string]> = [
    [{ type: "number" }, 'a "number" may have a fraction, and Cedar has only integers (Long); "integer" maps'],
    [{ type: "null" }, "null has no Cedar type"],
    [{ type: ["string", "null"] }, 'a list of types (["string","null"]) has no single Cedar type'],
    [{ anyOf: [{ type: "string" }, { type: "integer" }] }, "anyOf has no single Cedar type"],
    [{ type: "string", oneOf: [{ minLength: 1 }] }, "oneOf has no single Cedar type"],
    [{ allOf: [{ type: "string" }] }, "allOf has no single Cedar type"],
    [{ type: "string", not: { const: "" } }, "not has no single Cedar type"],
    [{ $ref: "#/$defs/thing" }, "$ref has no single Cedar type"],
    [{ type: "object", additionalProperties: { type: "string" } }, 'an object without "properties" is a map, and a Cedar record has fixed attributes'],
    [{ type: "array" }, 'an array needs one "items" schema'],
    [{ type: "array", items: [{ type: "string" }] }, 'an array needs one "items" schema'],
    [{ type: "array", items: { type: "number" } }, `its items have no Cedar type: a "number" may have a fraction, and Cedar has only integers (Long); "integer" maps`],
    [{ const: 3 }, 'its const is not a string, and it has no "type"'],
    [{ enum: ["a", 1] }, 'its enum is not all strings, and it has no "type"'],
    [{ description: "anything" }, 'it has no "type"'],
    [{ type: "date" }, 'unknown type "date"'],
    [true, "its schema is not an object"],
  ];
  for (const [schema, reason] of cases) {
    const mapped = inputType({ type: "object", properties: { kept: { type: "string" }, odd: schema } });
    expect(mapped.type.attributes, JSON.stringify(schema)).toEqual({ kept: { type: "String", required: false } });
    expect(mapped.unmapped, JSON.stringify(schema)).toEqual([{ argument: "odd", reason }]);
  }
});

test("inputType - a nested argument is reported by its dotted path, and its record keeps the rest", () => {
  const mapped = inputType({
    type: "object",
    properties: {
      options: { type: "object", properties: { depth: { type: "number" }, name: { type: "string" } } },
      files: { type: "array", items: { type: "object", properties: { path: { type: "string" }, mode: { type: "number" } } } },
    },
  });
  expect(mapped.unmapped).toEqual([
    { argument: "options.depth", reason: expect.stringContaining('"number"') },
    { argument: "files[].mode", reason: expect.stringContaining('"number"') },
  ]);
  expect(mapped.type.attributes.files).toEqual({
    type: "Set",
    required: false,
    element: { type: "Record", attributes: { path: { type: "String", required: false } } },
  });
});

test("inputType - keys Cedar's JSON format reserves are left out", () => {
  const mapped = inputType({ type: "object", properties: { __entity: { type: "string" }, __extn: { type: "string" }, __expr: { type: "string" }, ok: { type: "string" } } });
  expect(Object.keys(mapped.type.attributes)).toEqual(["ok"]);
  expect(mapped.unmapped.map((entry) => entry.argument)).toEqual(["__entity", "__extn", "__expr"]);
});

test(`inputType - records and sets nest at most ${MAX_CEDAR_NESTING} levels, the arguments' record counting as one`, () => {
  const nested = (levels: number): Record<string, unknown> =>
    levels === 1 ? { type: "object", properties: { leaf: { type: "string" } } } : { type: "object", properties: { a: nested(levels - 1) } };
  const deepest = inputType(nested(MAX_CEDAR_NESTING));
  expect(deepest.unmapped).toEqual([]);
  expect(wasm.checkParseSchema(cedarSchema([{ id: "deep", tools: [tool("deep", nested(MAX_CEDAR_NESTING))] }]).schema)).toEqual({ type: "success" });
  expect(inputType(nested(MAX_CEDAR_NESTING + 1)).unmapped).toEqual([{ argument: Array(MAX_CEDAR_NESTING).fill("a").join("."), reason: `it nests deeper than ${MAX_CEDAR_NESTING} levels` }]);
});

test("inputType - parameters without properties give an empty record, reported as the arguments as a whole", () => {
  expect(inputType({ type: "object" })).toEqual({
    type: { type: "Record", attributes: {} },
    unmapped: [{ argument: "", reason: 'an object without "properties" is a map, and a Cedar record has fixed attributes' }],
  });
});

const tool = (name: string, parameters: Record<string, unknown>) => ({ type: "function" as const, function: { name, description: name, parameters } });
