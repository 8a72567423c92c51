import type { CedarValueJson } from "@cedar-policy/cedar-wasm/nodejs";
import { inputType } from "./schema";
import type { CedarRecord, CedarType } from "./schema";

type Convert = (value: unknown) => CedarValueJson | undefined;
type ConvertRecord = (value: Record<string, unknown>) => Record<string, CedarValueJson>;

/** Keyed by the tool's parameters object, which must not change once a call has been converted with it. */
const converters = new WeakMap<Record<string, unknown>, ConvertRecord>();

/**
 * A call's arguments as the record `inputType(parameters)` declares: attributes it lacks are left out, and so is a value
 * of another type (a fraction, an integer beyond 2^53) or an array element that cannot be converted.
 */
export function cedarInput(parameters: Record<string, unknown>, args: Record<string, unknown>): Record<string, CedarValueJson> {
  let convert = converters.get(parameters);
  if (!convert) converters.set(parameters, (convert = recordConverter(inputType(parameters).type)));
  return convert(args);
}

function converter(type: CedarType): Convert {
  switch (type.type) {
    case "String":
      return (value) => (typeof value === "string" ? wellFormed(value) : undefined);
    case "Long":
      return (value) => (typeof value === "number" && Number.isSafeInteger(value) ? value : undefined);
    case "Boolean":
      return (value) => (typeof value === "boolean" ? value : undefined);
    case "Set": {
      const element = converter(type.element);
      return (value) => (Array.isArray(value) ? value.map(element).filter((converted) => converted !== undefined) : undefined);
    }
    case "Record": {
      const record = recordConverter(type);
      return (value) => (isObject(value) ? record(value) : undefined);
    }
  }
}

/** Only the type's attributes are read, so keys such as `__entity` never reach Cedar. */
function recordConverter(type: CedarRecord): ConvertRecord {
  const attributes = Object.entries(type.attributes).map(([name, attribute]) => [name, converter(attribute)] as const);
  return (value) => {
    const converted: Array<[string, CedarValueJson]> = [];
    for (const [name, convert] of attributes) {
      const attribute = Object.hasOwn(value, name) ? convert(value[name]) : undefined;
      if (attribute !== undefined) converted.push([name, attribute]);
    }
    return Object.fromEntries(converted);
  };
}

/** cedar-wasm throws on a lone surrogate; it becomes U+FFFD, as it does when Node encodes the string as UTF-8 for the tool. */
export const wellFormed = (value: string) => value.replace(/\p{Cs}/gu, "\uFFFD");

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
