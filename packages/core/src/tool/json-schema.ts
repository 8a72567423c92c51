import type { Ajv } from "ajv";
import type { Issue } from "../validation";
import type { ToolDefinition } from "./schema";

let checker: Promise<Ajv> | undefined;

/** Loaded on first use: only the functions that register groups pay for a JSON Schema validator. */
const loadChecker = () => (checker ??= import("./ajv").then(({ createAjv }) => createAjv({ strict: false, validateSchema: true })));

/** The tools whose parameters are not a valid JSON Schema (draft 2020-12 or 7, as ajv reads them), as validation issues. */
export async function jsonSchemaProblems(tools: readonly ToolDefinition[]): Promise<Issue[]> {
  const ajv = await loadChecker();
  return tools.flatMap((tool, index) =>
    ajv.validateSchema(tool.function.parameters) === true ? [] : [{ path: `tools.${index}.function.parameters`, message: "is not a valid JSON Schema" }],
  );
}
