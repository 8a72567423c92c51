import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { readableByAjv } from "../tool/json-schema";
import type { ToolDefinition } from "../tool/schema";
import { pathArguments } from "../policy/facts/arguments";
import {
  atLeast,
  atMost,
  itemsAtLeast,
  itemsAtMost,
  lengthAtLeast,
  lengthAtMost,
  mustBeOneOf,
  mustBeType,
  mustHaveFormat,
  mustMatchPattern,
} from "../validation";

let validator: Ajv | undefined;
let loading: Promise<Ajv> | undefined;

/**
 * Loads the argument validator, once: on the first call that needs it rather than when a function starts, since ajv
 * and its formats cost a cold start. verbose: errors carry the rejected value, so messages can name its type (never the value).
 */
export const loadArgumentValidator = (): Promise<Ajv> =>
  (loading ??= import("../tool/ajv").then(({ createAjv }) => {
    const options = { useDefaults: true, allErrors: true, strict: false, logger: false, coerceTypes: false, verbose: true } as const;
    return (validator = createAjv(options, { formats: true }));
  }));

function argumentValidator(): Ajv {
  if (!validator) throw new Error("The argument validator is not loaded: await loadArgumentValidator() first.");
  return validator;
}

const compiled = new WeakMap<ToolDefinition, { lenient?: ValidateFunction; strict?: ValidateFunction }>();

function validatorFor(definition: ToolDefinition, strict: boolean): ValidateFunction {
  const entry = compiled.get(definition) ?? {};
  compiled.set(definition, entry);
  const key = strict ? "strict" : "lenient";
  if (!entry[key]) {
    const schema = readableByAjv(definition.function.parameters);
    entry[key] = argumentValidator().compile(strict && schema.additionalProperties === undefined ? { ...schema, additionalProperties: false } : schema);
  }
  return entry[key];
}

export type ArgumentIssue = { path: string; message: string };

type Params = Record<string, unknown>;
const ALTERNATIVES = new Set(["anyOf", "oneOf"]);
const WRAPPERS = new Set([...ALTERNATIVES, "propertyNames", "contains"]);

const basePath = (error: ErrorObject) => (error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "");
const pathTo = (base: string, key?: unknown) => [base, key === undefined ? "" : String(key)].filter(Boolean).join(".") || "(arguments)";
const itemCount = (count: number) => `${count} ${count === 1 ? "item" : "items"}`;
const limitOf = (error: ErrorObject) => Number((error.params as Params).limit);

/** The errors ajv reports from inside a wrapper keyword (each anyOf branch, a propertyNames check). */
const innerErrorsOf = (wrapper: ErrorObject, errors: readonly ErrorObject[]) =>
  errors.filter((error) => error.schemaPath.startsWith(`${wrapper.schemaPath}/`));

/** Inner errors are folded into their wrapper's message; an "if" failure is always explained by its then/else errors. */
function reportable(errors: readonly ErrorObject[]): ErrorObject[] {
  const wrappers = errors.filter((error) => WRAPPERS.has(error.keyword));
  return errors.filter(
    (error) => error.keyword !== "if" && !wrappers.some((wrapper) => error.schemaPath.startsWith(`${wrapper.schemaPath}/`)),
  );
}

function describeAlternatives(error: ErrorObject, errors: readonly ErrorObject[]): string {
  if ((error.params as Params).passingSchemas) return "matches more than one of the allowed forms; make it match exactly one";
  const inner = innerErrorsOf(error, errors);
  const typeOnly = inner.length > 0 && inner.every((e) => e.keyword === "type" && e.instancePath === error.instancePath);
  return typeOnly ? mustBeType(inner.flatMap((e) => (e.params as Params).type as string | string[]), error.data) : "does not match any of the allowed forms";
}

function describeKeyword(error: ErrorObject, errors: readonly ErrorObject[]): string {
  const params = error.params as Params;
  switch (error.keyword) {
    case "type":
      return mustBeType([params.type as string | string[]].flat(), error.data);
    case "enum":
      return mustBeOneOf(params.allowedValues as unknown[]);
    case "const":
      return mustBeOneOf([params.allowedValue]);
    case "minLength":
      return lengthAtLeast(limitOf(error));
    case "maxLength":
      return lengthAtMost(limitOf(error));
    case "minimum":
    case "exclusiveMinimum":
      return atLeast(limitOf(error), error.keyword === "minimum");
    case "maximum":
    case "exclusiveMaximum":
      return atMost(limitOf(error), error.keyword === "maximum");
    case "minItems":
      return itemsAtLeast(limitOf(error));
    case "maxItems":
    case "additionalItems":
      return itemsAtMost(limitOf(error));
    case "minProperties":
      return itemsAtLeast(limitOf(error), "field");
    case "maxProperties":
      return itemsAtMost(limitOf(error), "field");
    case "uniqueItems":
      return `must list each item only once (items ${params.j} and ${params.i} are the same)`;
    case "multipleOf":
      return `must be a multiple of ${params.multipleOf}`;
    case "pattern":
      return mustMatchPattern(String(params.pattern));
    case "format":
      return mustHaveFormat(String(params.format));
    case "contains":
      return `must contain at least ${itemCount(Number(params.minContains ?? 1))} matching the tool's schema`;
    case "anyOf":
    case "oneOf":
      return describeAlternatives(error, errors);
    case "not":
      return "is a value this parameter does not accept";
    case "false schema":
      return "is not accepted by this tool";
    default:
      return `is not valid (it breaks the "${error.keyword}" rule of the tool's parameters)`;
  }
}

function describe(error: ErrorObject, errors: readonly ErrorObject[]): ArgumentIssue {
  const base = basePath(error);
  const params = error.params as Params;
  switch (error.keyword) {
    case "additionalProperties":
    case "unevaluatedProperties":
      return { path: pathTo(base, params.additionalProperty ?? params.unevaluatedProperty), message: "is not a parameter of this tool" };
    case "required":
      return { path: pathTo(base, params.missingProperty), message: "is required" };
    case "dependencies":
    case "dependentRequired":
      return { path: pathTo(base, params.missingProperty), message: `is required when ${base ? `${base}.` : ""}${params.property} is given` };
    case "propertyNames": {
      const reason = innerErrorsOf(error, errors)[0];
      return { path: pathTo(base, params.propertyName), message: `is not an accepted field name${reason ? `: ${describeKeyword(reason, errors)}` : ""}` };
    }
    default:
      return { path: pathTo(base), message: describeKeyword(error, errors) };
  }
}

/** ajv's errors as plain-English issues, one per problem, at dotted paths. */
export const describeArgumentErrors = (errors: readonly ErrorObject[]): ArgumentIssue[] =>
  reportable(errors).map((error) => describe(error, errors));

/** Validates arguments against the tool's JSON Schema (compiled once per definition), with defaults applied. */
export function validateArguments(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  strict: boolean,
): { valid: true; value: Record<string, unknown> } | { valid: false; issues: ArgumentIssue[] } {
  const value = structuredClone(args);
  const validate = validatorFor(definition, strict);
  if (!validate(value)) return { valid: false, issues: describeArgumentErrors(validate.errors ?? []) };
  const unreadablePaths = controlCharactersInPaths(definition, value);
  return unreadablePaths.length ? { valid: false, issues: unreadablePaths } : { valid: true, value };
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * A path argument holding a NUL or another control character: no file system path holds one, and the text around it
 * could resolve inside the workspace (`/etc/passwd\0/../../work/app/x`) while what opens it reads something else.
 */
function controlCharactersInPaths(definition: ToolDefinition, args: Record<string, unknown>): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  for (const name of pathArguments(definition)) {
    const value = args[name];
    const paths = typeof value === "string" ? [[name, value]] : Array.isArray(value) ? value.map((item, index) => [`${name}[${index}]`, item] as const) : [];
    for (const [at, path] of paths) {
      const found = typeof path === "string" ? CONTROL_CHARACTER.exec(path) : null;
      if (found) issues.push({ path: at as string, message: `holds a control character (U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}), which no path may hold` });
    }
  }
  return issues;
}
