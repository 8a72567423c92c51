import type { z } from "zod";
import { errorCatalog } from "./error";
import type { ErrorCatalog } from "./error";

export type Issue = { path: string; message: string };

type RawIssue = z.core.$ZodRawIssue;
type IssueOf<Code extends RawIssue["code"]> = Extract<RawIssue, { code: Code }>;
type Primitive = string | number | bigint | boolean | symbol | null | undefined;

const MAX_LISTED = 10;
const MAX_NAME_LENGTH = 64;

// ---- English building blocks, shared with the JSON Schema (ajv) descriptions ----

const plural = (count: number | bigint, noun: string) => `${count} ${noun}${count === 1 || count === 1n ? "" : "s"}`;

const shorten = (text: string) => (text.length > MAX_NAME_LENGTH ? `${text.slice(0, MAX_NAME_LENGTH)}…` : text);
const quoteName = (name: string) => JSON.stringify(shorten(name));

const asJson = (value: unknown): string => (typeof value === "bigint" ? String(value) : (JSON.stringify(value) ?? String(value)));
const showValue = (value: unknown): string => shorten(typeof value === "string" ? value : asJson(value));

/** "a, b, c" for up to ten values, then "… (and N more)". */
export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map(showValue).join(", ");
  return values.length > MAX_LISTED ? `${shown}, … (and ${values.length - MAX_LISTED} more)` : shown;
}

/** "must be one of: a, b" (or "must be a" for a single allowed value). */
export const mustBeOneOf = (values: readonly unknown[]) =>
  values.length === 1 ? `must be ${shorten(asJson(values[0]))}` : `must be one of: ${listValues(values)}`;

const TYPE_NOUNS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  integer: "an integer",
  bigint: "an integer",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "a list",
  tuple: "a list",
  set: "a list",
  map: "an object",
  null: "null",
  date: "a date",
};

const typeNoun = (type: string) => TYPE_NOUNS[type] ?? `a ${type}`;
const receivedNoun = (type: string) => (type === "boolean" ? "a boolean" : typeNoun(type));

/** The JSON type of a value, in the words of TYPE_NOUNS; never the value itself. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const isNumeric = (type: string) => ["number", "int", "integer", "bigint"].includes(type);

/** "must be a string, not a list"; the "not ..." part is left out when it would only confuse (an integer expected, a fraction sent). */
export function mustBeType(expected: readonly string[], received: unknown): string {
  const receivedType = jsonTypeOf(received);
  const wanted = `must be ${[...new Set(expected.map(typeNoun))].join(" or ")}`;
  const confusing = expected.some(isNumeric) && isNumeric(receivedType);
  return confusing || receivedType === "undefined" ? wanted : `${wanted}, not ${receivedNoun(receivedType)}`;
}

export const atLeast = (minimum: number | bigint, inclusive = true) =>
  inclusive ? `must be at least ${minimum}` : `must be greater than ${minimum}`;
export const atMost = (maximum: number | bigint, inclusive = true) =>
  inclusive ? `must be at most ${maximum}` : `must be less than ${maximum}`;

export const lengthAtLeast = (minimum: number | bigint) =>
  minimum === 1 || minimum === 1n ? "cannot be empty" : `must be at least ${plural(minimum, "character")} long`;
export const lengthAtMost = (maximum: number | bigint) => `must be at most ${plural(maximum, "character")} long`;

export const itemsAtLeast = (minimum: number | bigint, noun = "item") => `must have at least ${plural(minimum, noun)}`;
export const itemsAtMost = (maximum: number | bigint, noun = "item") => `must have at most ${plural(maximum, noun)}`;

const FORMAT_NAMES: Record<string, string> = {
  email: "a valid email address",
  url: "a valid URL",
  uri: "a valid URI, such as https://example.com/page",
  "uri-reference": "a valid URI or relative reference",
  uuid: "a UUID",
  guid: "a GUID",
  datetime: "a date and time in ISO 8601 form, such as 2024-05-01T12:00:00Z",
  "date-time": "a date and time in ISO 8601 form, such as 2024-05-01T12:00:00Z",
  date: "a date in the form YYYY-MM-DD",
  time: "a time in the form HH:MM:SS",
  duration: "an ISO 8601 duration, such as PT5M",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  cidrv4: "an IPv4 range",
  cidrv6: "an IPv6 range",
  hostname: "a host name",
  base64: "base64-encoded text",
  base64url: "base64url-encoded text",
  jwt: "a JWT",
  json_string: "a string of JSON",
  e164: "a phone number in E.164 form, such as +14155550100",
  regex: "a valid regular expression",
  emoji: "a single emoji",
};

/** "must be a valid email address" for a named string format (zod or JSON Schema spelling). */
export const mustHaveFormat = (format: string) => `must be ${FORMAT_NAMES[format] ?? `a valid ${format.replaceAll("_", " ")}`}`;

export const mustMatchPattern = (pattern: string) => `must match the pattern ${pattern}`;

// ---- zod issues ----

const OPENAI_STRING_ARGUMENTS =
  "must be a JSON object, not a string; if your model produced the arguments as a JSON string (as OpenAI tool calls do), parse it and send the object";

const lastSegment = (issue: RawIssue) => issue.path?.at(-1);

function describeInvalidType(issue: IssueOf<"invalid_type">): string {
  const { expected, input } = issue;
  if (input === undefined || expected === "nonoptional") return "is required";
  if (typeof input === "number" && Number.isNaN(input)) return "must be a number";
  const objectExpected = expected === "object" || expected === "record";
  if (objectExpected && typeof input === "string" && lastSegment(issue) === "arguments") return OPENAI_STRING_ARGUMENTS;
  if (expected === "never") return "is not allowed here";
  if (expected === "undefined" || expected === "void") return "must be left out";
  return mustBeType([expected], input);
}

function describeTooSmall({ origin, minimum, inclusive = true, exact }: IssueOf<"too_small">): string {
  if (origin === "string") return exact ? `must be exactly ${plural(minimum, "character")} long` : lengthAtLeast(minimum);
  if (origin === "array" || origin === "set") return exact ? `must have exactly ${plural(minimum, "item")}` : itemsAtLeast(minimum);
  if (origin === "map") return itemsAtLeast(minimum, "entry");
  if (origin === "file") return `must be at least ${plural(minimum, "byte")}`;
  if (origin === "date") return `must be on or after ${new Date(Number(minimum)).toISOString()}`;
  return atLeast(minimum, inclusive);
}

function describeTooBig({ origin, maximum, inclusive = true, exact }: IssueOf<"too_big">): string {
  if (origin === "string") return exact ? `must be exactly ${plural(maximum, "character")} long` : lengthAtMost(maximum);
  if (origin === "array" || origin === "set") return exact ? `must have exactly ${plural(maximum, "item")}` : itemsAtMost(maximum);
  if (origin === "map") return itemsAtMost(maximum, "entry");
  if (origin === "file") return `must be at most ${plural(maximum, "byte")}`;
  if (origin === "date") return `must be on or before ${new Date(Number(maximum)).toISOString()}`;
  return atMost(maximum, inclusive);
}

const allowedProtocol = (issue: RawIssue): RegExp | undefined =>
  (issue.inst?._zod.def as { protocol?: RegExp } | undefined)?.protocol;

function describeUrl(issue: RawIssue): string {
  const protocol = allowedProtocol(issue);
  const webOnly = protocol && protocol.test("http") && protocol.test("https") && !protocol.test("ftp");
  return webOnly ? "must be an http:// or https:// URL" : mustHaveFormat("url");
}

function describeInvalidFormat(issue: IssueOf<"invalid_format">): string {
  const { format } = issue;
  const detail = issue as IssueOf<"invalid_format"> & { prefix?: string; suffix?: string; includes?: string };
  if (format === "url") return describeUrl(issue);
  if (format === "regex") return mustMatchPattern(issue.pattern ?? "required by the schema");
  if (format === "starts_with") return `must start with ${JSON.stringify(detail.prefix)}`;
  if (format === "ends_with") return `must end with ${JSON.stringify(detail.suffix)}`;
  if (format === "includes") return `must contain ${JSON.stringify(detail.includes)}`;
  return mustHaveFormat(format);
}

const fieldOf = (input: unknown, key: string): unknown =>
  typeof input === "object" && input !== null ? (input as Record<string, unknown>)[key] : undefined;

type BranchIssue = { code?: string; path: PropertyKey[]; expected?: string };

/** When every alternative failed only on its type, the allowed types say it all: "must be a string or a number". */
function onlyTypeMismatches(branches: readonly (readonly BranchIssue[])[]): string[] | undefined {
  const expected = branches.map((issues) =>
    issues.length === 1 && issues[0]!.code === "invalid_type" && issues[0]!.path.length === 0 ? issues[0]!.expected : undefined,
  );
  return expected.every((type): type is string => type !== undefined) ? expected : undefined;
}

function describeInvalidUnion(issue: IssueOf<"invalid_union">): string {
  if (issue.inclusive === false) return "matches more than one of the allowed forms; make it match exactly one";
  const { discriminator, options, errors } = issue as IssueOf<"invalid_union"> & { options?: Primitive[] };
  if (discriminator !== undefined && options?.length) {
    const allowed = `must be one of: ${listValues(options)}`;
    return fieldOf(issue.input, discriminator) === undefined ? `is required and ${allowed}` : allowed;
  }
  if (issue.input === undefined) return "is required";
  const types = onlyTypeMismatches(errors ?? []);
  return types ? mustBeType(types, issue.input) : "does not match any of the allowed forms";
}

const firstInnerMessage = (issues: readonly { message: string }[]) => (issues[0] ? `: ${issues[0].message}` : "");

function describeUnrecognizedKeys({ keys }: IssueOf<"unrecognized_keys">): string {
  const names = listValues(keys.map(quoteName));
  return keys.length === 1 ? `has an unknown field ${names}` : `has unknown fields ${names}`;
}

/** Plain English for one zod issue; never quotes the rejected value. */
export function describeZodIssue(issue: RawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return describeInvalidType(issue);
    case "too_small":
      return describeTooSmall(issue);
    case "too_big":
      return describeTooBig(issue);
    case "invalid_format":
      return describeInvalidFormat(issue);
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys":
      return describeUnrecognizedKeys(issue);
    case "invalid_union":
      return describeInvalidUnion(issue);
    case "invalid_value":
      return mustBeOneOf(issue.values);
    case "invalid_key":
      return `is not an accepted key${firstInnerMessage(issue.issues)}`;
    case "invalid_element":
      return `has an entry that is not valid${firstInnerMessage(issue.issues)}`;
    case "custom":
      return issue.message ?? "is not valid";
    default:
      return "is not valid";
  }
}

/** A zod error map giving every issue in plain English; messages a schema sets itself still win. */
export const humanErrorMap: z.core.$ZodErrorMap = (issue) => describeZodIssue(issue);

/** safeParse with humanErrorMap: use it wherever the issues become messages for people or models. */
export const safeParseHuman = <S extends z.ZodType>(schema: S, input: unknown) => schema.safeParse(input, { error: humanErrorMap });

// ---- 400 responses ----

export const describeIssues = (error: z.ZodError): Issue[] =>
  error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
  }));

export const summarise = (issues: Issue[]) =>
  issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ") + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : "");

/** Parses input with a schema, turning a failure into the catalog's error of that code, with per-field details in plain English. */
export function parseOr<S extends z.ZodType, C extends ErrorCatalog>(schema: S, input: unknown, catalog: C, code: keyof C & string, what: string): z.output<S> {
  const result = safeParseHuman(schema, input);
  if (result.success) return result.data;
  const details = describeIssues(result.error);
  throw errorCatalog(catalog)(code, `${what} is not valid: ${summarise(details)}.`, { details });
}
