import type { AttributeValue } from "@aws-sdk/client-dynamodb";

export type Values = Record<string, any>;
export type Attributes = Record<string, AttributeValue>;

/** DynamoDB's numbers: 0, or magnitudes from 1e-130 up to (not including) 1e126; a double's shortest text fits its 38 digits. */
const holdsNumber = (n: number) => n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) < 1e126);

/** DynamoDB names no attribute ""; an object built key by key takes "__proto__" for its prototype. */
const keyMapsCannotCarry = (key: string) => key === "" || key === "__proto__";

const isPlainObject = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const asJsonText = (value: unknown): AttributeValue => ({ B: Buffer.from(JSON.stringify(value), "utf8") });

const utf8 = new TextDecoder();
/** A binary attribute's bytes: the SDK's are bytes, a Lambda stream event's are base64 text. */
const textOf = (bytes: Uint8Array | string) => (typeof bytes === "string" ? Buffer.from(bytes, "base64").toString("utf8") : utf8.decode(bytes));

function listAttribute(list: unknown[]): AttributeValue {
  const L: AttributeValue[] = [];
  for (const value of list) {
    const attribute = toAttribute(value);
    if (attribute !== undefined) L.push(attribute);
  }
  return { L };
}

function mapAttribute(object: Values): AttributeValue {
  const M: Attributes = {};
  for (const key of Object.keys(object)) {
    if (keyMapsCannotCarry(key)) return asJsonText(object);
    const attribute = toAttribute(object[key]);
    if (attribute !== undefined) M[key] = attribute;
  }
  return { M };
}

/**
 * A JSON value as DynamoDB's own type (S, N, BOOL, NULL, L, M), which expressions read inside; undefined (and a
 * function) is left out, as the document client leaves it out. What those types cannot hold, a number beyond
 * DynamoDB's range or an object with a key a map cannot carry, is its JSON text in a binary attribute (B): JSON has no
 * binary, and toolgate stores none otherwise, so a B always reads back as the value its text is. A number JSON cannot
 * write (NaN, ±Infinity: what JSON.parse makes of 1e400) is null, as JSON.stringify writes it.
 */
export function toAttribute(value: unknown): AttributeValue | undefined {
  switch (typeof value) {
    case "string":
      return { S: value };
    case "number":
      if (holdsNumber(value)) return { N: String(value) };
      return Number.isFinite(value) ? asJsonText(value) : { NULL: true };
    case "boolean":
      return { BOOL: value };
    case "undefined":
    case "function":
      return undefined;
    case "object":
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) return listAttribute(value);
      if (isPlainObject(value)) return mapAttribute(value as Values);
  }
  throw new Error(`${Object.prototype.toString.call(value)} is not a JSON value: toolgate stores JSON values only.`);
}

export function fromAttribute(attribute: AttributeValue): unknown {
  if (attribute.S !== undefined) return attribute.S;
  if (attribute.N !== undefined) return Number(attribute.N);
  if (attribute.M !== undefined) return fromAttributes(attribute.M);
  if (attribute.L !== undefined) return attribute.L.map(fromAttribute);
  if (attribute.BOOL !== undefined) return attribute.BOOL;
  if (attribute.NULL !== undefined) return null;
  if (attribute.B !== undefined) return JSON.parse(textOf(attribute.B as Uint8Array | string));
  throw new Error(`An attribute of type ${Object.keys(attribute).join(", ")} is not one toolgate stores.`);
}

/** An item, a key or expression values, each value converted as `toAttribute` converts it. */
export function toAttributes(values: Values): Attributes {
  const attributes: Attributes = {};
  for (const name of Object.keys(values)) {
    const attribute = toAttribute(values[name]);
    if (attribute !== undefined) attributes[name] = attribute;
  }
  return attributes;
}

export function fromAttributes(attributes: Attributes): Values {
  const values: Values = {};
  for (const name of Object.keys(attributes)) values[name] = fromAttribute(attributes[name]!);
  return values;
}
