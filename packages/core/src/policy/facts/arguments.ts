import type { ToolDefinition } from "../../tool/schema";

type ArgumentNames = { paths: string[]; commands: string[] };

const argumentNames = new WeakMap<ToolDefinition, ArgumentNames>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const namesPaths = (schema: unknown) =>
  isRecord(schema) && (schema.format === "path" || (isRecord(schema.items) && schema.items.format === "path"));

export function namesOf(definition: ToolDefinition): ArgumentNames {
  let names = argumentNames.get(definition);
  if (!names) {
    const properties = definition.function.parameters.properties;
    const formatted = isRecord(properties) ? Object.keys(properties).filter((name) => namesPaths(properties[name])) : [];
    const policy = definition["x-toolgate"];
    names = {
      paths: [...new Set([...(policy?.pathArguments ?? []), ...formatted])],
      commands: policy?.commandArguments ?? [],
    };
    argumentNames.set(definition, names);
  }
  return names;
}

/** The top-level arguments that name a path or a list of paths: declared in `x-toolgate`, then by `"format": "path"`. */
export const pathArguments = (definition: ToolDefinition): string[] => [...namesOf(definition).paths];

export const commandArguments = (definition: ToolDefinition): string[] => [...namesOf(definition).commands];

