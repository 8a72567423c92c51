import type { ActionType, EntityType, SchemaJson } from "@cedar-policy/cedar-wasm/nodejs";
import type { Group } from "../../group/schema";
import { OFFER_ACTIONS } from "../../offer/schema";

export type CedarType = { type: "String" } | { type: "Long" } | { type: "Boolean" } | { type: "Set"; element: CedarType } | CedarRecord;
export type CedarAttribute = CedarType & { required?: false };
export type CedarRecord = { type: "Record"; attributes: Record<string, CedarAttribute> };

/** `argument` is a dotted path such as "options.depth"; "files[].mode" is a property of an array's items. */
export type Unmapped = { tool: string; argument: string; reason: string };
export type CatalogSchema = { schema: SchemaJson<string>; unmapped: Unmapped[] };
type UnmappedArgument = Omit<Unmapped, "tool">;

/** The nesting of records and sets, the arguments' own record counting as 1, beyond which an argument is left out. */
export const MAX_CEDAR_NESTING = 32;

/** Cedar's JSON format reads a record with one of these keys as an entity, an extension value or an expression. */
const RESERVED_KEYS = new Set(["__entity", "__extn", "__expr"]);
const COMPOSITION_KEYWORDS = ["$ref", "anyOf", "oneOf", "allOf", "not"];

const STRING = { type: "String" } as const;
const LONG = { type: "Long" } as const;
const BOOL = { type: "Boolean" } as const;

const ENTITY_TYPES: Record<string, EntityType<string>> = {
  Agent: {
    shape: {
      type: "Record",
      attributes: { role: STRING, roleId: STRING, department: { ...STRING, required: false }, level: { ...LONG, required: false } },
    },
  },
  ToolGroup: {},
};

/**
 * A group as a schema holds it: its tools, typed from their parameters, and `untyped` names of tools it has whose
 * definitions another layer types. Those are actions a policy may name (in the group), with no context, so Cedar
 * checks no call of theirs here.
 */
export type SchemaGroup = Pick<Group, "id" | "tools" | "offers"> & { untyped?: readonly string[] };

export function cedarSchema(groups: Iterable<SchemaGroup>): CatalogSchema {
  const actions = new Map<string, ActionType<string>>();
  const unmapped: Unmapped[] = [];
  const add = (name: string, action: ActionType<string>) => {
    if (actions.has(name)) throw new Error(`The tool "${name}" appears more than once in the catalog; tool names are unique.`);
    actions.set(name, action);
  };
  const reading: string[] = [];
  const prompting: string[] = [];
  const promptArguments = new Set<string>();
  for (const group of groups) {
    const groupAction = `group:${group.id}`;
    if (group.offers?.resources.length || group.offers?.resourceTemplates.length) reading.push(groupAction);
    if (group.offers?.prompts.length) prompting.push(groupAction);
    for (const prompt of group.offers?.prompts ?? []) for (const argument of prompt.arguments ?? []) promptArguments.add(argument.name);
    actions.set(groupAction, {});
    for (const name of group.untyped ?? []) add(name, { memberOf: [{ id: groupAction }] });
    for (const tool of group.tools) {
      const name = tool.function.name;
      const input = inputType(tool.function.parameters);
      unmapped.push(...input.unmapped.map((argument) => ({ tool: name, ...argument })));
      add(name, {
        memberOf: [{ id: groupAction }],
        appliesTo: { principalTypes: ["Agent"], resourceTypes: ["ToolGroup"], context: callContext(input.type) },
      });
    }
  }
  if (reading.length) add(OFFER_ACTIONS.resource, offerAction(reading, { type: "Record", attributes: { uri: STRING } }, "uri"));
  if (prompting.length) {
    const input = Object.fromEntries([...promptArguments].filter((name) => !nameProblem(name)).map((name) => [name, { ...STRING, required: false as const }]));
    add(OFFER_ACTIONS.prompt, offerAction(prompting, { type: "Record", attributes: input }, "prompt"));
  }
  return { schema: { "": { entityTypes: ENTITY_TYPES, actions: Object.fromEntries(actions) } }, unmapped };
}

/**
 * A resource read or a prompt get: one action in the action group of every group offering it, its context a call's
 * (every fact at its empty value, so a policy about every action still reads it) with `input` and its own attribute.
 */
const offerAction = (groupActions: readonly string[], input: CedarRecord, own: "uri" | "prompt"): ActionType<string> => {
  const context = callContext(input);
  return {
    memberOf: groupActions.map((id) => ({ id })),
    appliesTo: { principalTypes: ["Agent"], resourceTypes: ["ToolGroup"], context: { ...context, attributes: { ...context.attributes, [own]: STRING } } },
  };
};

const callContext = (input: CedarRecord): CedarRecord => ({
  type: "Record",
  attributes: {
    input,
    path: STRING,
    outsideWorkspace: BOOL,
    command: STRING,
    program: STRING,
    flags: { type: "Set", element: STRING },
    codeExecution: BOOL,
    dynamic: BOOL,
    commandSubstitution: BOOL,
    forkBomb: BOOL,
    inputBytes: LONG,
    largestStringBytes: LONG,
  },
});

/** The record a tool's arguments become; composition keywords beside the top-level properties only constrain them, so they are ignored there. */
export function inputType(parameters: Record<string, unknown>): { type: CedarRecord; unmapped: UnmappedArgument[] } {
  const unmapped: UnmappedArgument[] = [];
  const mapped = objectType(parameters, "", 1, unmapped);
  if ("type" in mapped) return { type: mapped.type, unmapped };
  return { type: { type: "Record", attributes: {} }, unmapped: [{ argument: "", reason: mapped.reason }] };
}

type Mapping<Type = CedarType> = { type: Type } | { reason: string };

function cedarType(schema: unknown, path: string, level: number, unmapped: UnmappedArgument[]): Mapping {
  if (!isObject(schema)) return { reason: "its schema is not an object" };
  const composition = COMPOSITION_KEYWORDS.find((keyword) => keyword in schema);
  if (composition) return { reason: `${composition} has no single Cedar type` };
  const type = "type" in schema ? schema.type : typeOfValues(schema);
  switch (type) {
    case "string":
      return { type: STRING };
    case "integer":
      return { type: LONG };
    case "boolean":
      return { type: BOOL };
    case "number":
      return { reason: 'a "number" may have a fraction, and Cedar has only integers (Long); "integer" maps' };
    case "null":
      return { reason: "null has no Cedar type" };
    case "array":
      return setType(schema, path, level, unmapped);
    case "object":
      return objectType(schema, path, level, unmapped);
  }
  if (Array.isArray(type)) return { reason: `a list of types (${JSON.stringify(type)}) has no single Cedar type` };
  if (type === undefined) return { reason: untypedReason(schema) };
  return { reason: `unknown type ${JSON.stringify(type)}` };
}

const typeOfValues = (schema: Record<string, unknown>) => {
  if ("const" in schema) return typeof schema.const === "string" ? "string" : undefined;
  const values = schema.enum;
  return Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === "string") ? "string" : undefined;
};

const untypedReason = (schema: Record<string, unknown>) => {
  if ("const" in schema) return 'its const is not a string, and it has no "type"';
  if ("enum" in schema) return 'its enum is not all strings, and it has no "type"';
  return 'it has no "type"';
};

function setType(schema: Record<string, unknown>, path: string, level: number, unmapped: UnmappedArgument[]): Mapping {
  if (level > MAX_CEDAR_NESTING) return { reason: `it nests deeper than ${MAX_CEDAR_NESTING} levels` };
  if (!isObject(schema.items)) return { reason: 'an array needs one "items" schema' };
  const element = cedarType(schema.items, `${path}[]`, level + 1, unmapped);
  return "type" in element ? { type: { type: "Set", element: element.type } } : { reason: `its items have no Cedar type: ${element.reason}` };
}

function objectType(schema: Record<string, unknown>, path: string, level: number, unmapped: UnmappedArgument[]): Mapping<CedarRecord> {
  if (level > MAX_CEDAR_NESTING) return { reason: `it nests deeper than ${MAX_CEDAR_NESTING} levels` };
  if (!isObject(schema.properties)) return { reason: 'an object without "properties" is a map, and a Cedar record has fixed attributes' };
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const attributes: Array<[string, CedarAttribute]> = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const argument = path ? `${path}.${name}` : name;
    const mapped = nameProblem(name) ?? cedarType(property, argument, level + 1, unmapped);
    if ("reason" in mapped) unmapped.push({ argument, reason: mapped.reason });
    else attributes.push([name, required.has(name) ? mapped.type : { ...mapped.type, required: false }]);
  }
  return { type: { type: "Record", attributes: Object.fromEntries(attributes) } };
}

function nameProblem(name: string): { reason: string } | undefined {
  if (RESERVED_KEYS.has(name)) return { reason: `Cedar's JSON format reserves the key ${name}` };
  if (/\p{Cs}/u.test(name)) return { reason: "its name is not well-formed Unicode (a lone surrogate)" };
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
