import type { Ajv } from "ajv";
import type { Issue } from "../validation";
import type { ToolDefinition } from "./schema";

let checker: Promise<Ajv> | undefined;

/** Loaded on first use: only the functions that register groups pay for a JSON Schema validator. */
const loadChecker = () => (checker ??= import("./ajv").then(({ createAjv }) => createAjv({ strict: false, validateSchema: true })));

/**
 * A schema as ajv is given it: without its `$schema`. ajv reads every schema in one dialect (draft 7, and the keywords
 * 2020-12 shares with it alike), and a `$schema` naming another (2020-12, as MCP servers declare) would make it look for
 * that meta-schema and fail. Definitions keep `$schema` as they were given; only ajv's copy goes without.
 */
export function readableByAjv(schema: Record<string, unknown>): Record<string, unknown> {
  if (!("$schema" in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The tools whose parameters or outputSchema are not a valid JSON Schema (as ajv reads them), as validation issues. */
export async function jsonSchemaProblems(tools: readonly ToolDefinition[]): Promise<Issue[]> {
  const ajv = await loadChecker();
  const invalid = (schema: Record<string, unknown>) => ajv.validateSchema(readableByAjv(schema)) !== true;
  return tools.flatMap((tool, index) => [
    ...(invalid(tool.function.parameters) ? [{ path: `tools.${index}.function.parameters`, message: "is not a valid JSON Schema" }] : []),
    ...(tool.outputSchema && invalid(tool.outputSchema) ? [{ path: `tools.${index}.outputSchema`, message: "is not a valid JSON Schema" }] : []),
  ]);
}
