import { expect, test } from "vitest";
import { jsonSchemaProblems } from "./json-schema";
import type { ToolDefinition } from "./schema";

const tool = (name: string, parameters: Record<string, unknown>): ToolDefinition => ({ type: "function", function: { name, description: "d", parameters } });

test("jsonSchemaProblems - names each tool whose parameters are not a valid JSON Schema", async () => {
  const invalid = [
    { type: "object", properties: { a: { type: "nonsense" } } },
    { type: "object", required: "a" },
    { type: "object", properties: [] },
    { type: "object", minProperties: -1 },
    { type: "object", additionalProperties: 3 },
  ];
  const tools = [tool("fine", { type: "object", properties: { q: { type: "string" } } }), ...invalid.map((parameters, i) => tool(`bad${i}`, parameters))];
  expect(await jsonSchemaProblems(tools)).toEqual(invalid.map((_, i) => ({ path: `tools.${i + 1}.function.parameters`, message: "is not a valid JSON Schema" })));
});

test("jsonSchemaProblems - valid schemas have no problems", async () => {
  expect(await jsonSchemaProblems([tool("a", { type: "object" }), tool("b", { type: "object", properties: { x: { type: "integer", minimum: 0 } }, required: ["x"] })])).toEqual([]);
});
