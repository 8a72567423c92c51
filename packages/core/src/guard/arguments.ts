import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { ToolDefinition } from "../tool/definition";

const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false, logger: false, coerceTypes: false });
addFormats.default(ajv);

const compiled = new WeakMap<ToolDefinition, { lenient?: ValidateFunction; strict?: ValidateFunction }>();

function validatorFor(definition: ToolDefinition, strict: boolean): ValidateFunction {
  const entry = compiled.get(definition) ?? {};
  compiled.set(definition, entry);
  const key = strict ? "strict" : "lenient";
  const schema = definition.function.parameters;
  entry[key] ??= ajv.compile(strict && schema.additionalProperties === undefined ? { ...schema, additionalProperties: false } : schema);
  return entry[key]!;
}

export type ArgumentIssue = { path: string; message: string };

const describe = (error: ErrorObject): ArgumentIssue => {
  const base = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "";
  if (error.keyword === "additionalProperties")
    return { path: [base, (error.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join("."), message: "is not a parameter of this tool" };
  if (error.keyword === "required")
    return { path: [base, (error.params as { missingProperty: string }).missingProperty].filter(Boolean).join("."), message: "is required" };
  return { path: base || "(arguments)", message: error.message ?? "is not valid" };
};

/** Validates arguments against the tool's JSON Schema (compiled once per definition), with defaults applied. */
export function validateArguments(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  strict: boolean,
): { valid: true; value: Record<string, unknown> } | { valid: false; issues: ArgumentIssue[] } {
  const value = structuredClone(args);
  const validate = validatorFor(definition, strict);
  if (validate(value)) return { valid: true, value };
  return { valid: false, issues: (validate.errors ?? []).map(describe) };
}
