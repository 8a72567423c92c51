import type { ToolDefinition } from "../tool/schema";
import type { SearchEntry } from "./schema";
import { tokenize } from "./tokenize";

/** How much a term counts in each field, and how much a long field dilutes it (BM25F). */
export const FIELDS = {
  name: { weight: 4, lengthNormalization: 0.3 },
  description: { weight: 1, lengthNormalization: 0.75 },
  parameterNames: { weight: 0.5, lengthNormalization: 0.5 },
  parameterDescriptions: { weight: 0.25, lengthNormalization: 0.75 },
  group: { weight: 0.5, lengthNormalization: 0.5 },
} as const;
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];

export const K1 = 1.2;

export type Posting = { readonly docs: Int32Array; readonly weights: Float32Array };

export type SearchIndex = {
  readonly size: number;
  readonly names: readonly string[];
  readonly groupIds: readonly string[];
  /** Per tool, the distinct terms of its name. */
  readonly nameTerms: ReadonlyArray<readonly string[]>;
  readonly idf: ReadonlyMap<string, number>;
  /** Per term, the tools that contain it and its saturated BM25F term weight in each. */
  readonly postings: ReadonlyMap<string, Posting>;
};

const MAX_SCHEMA_DEPTH = 3;

function parameterTexts(schema: unknown, depth = 0, names: string[] = [], descriptions: string[] = []) {
  if (depth >= MAX_SCHEMA_DEPTH || typeof schema !== "object" || schema === null) return { names, descriptions };
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === "object" && properties !== null)
    for (const [name, property] of Object.entries(properties)) {
      names.push(name);
      if (typeof property !== "object" || property === null) continue;
      const { description, enum: values } = property as { description?: unknown; enum?: unknown };
      if (typeof description === "string") descriptions.push(description);
      if (Array.isArray(values)) names.push(...values.filter((value): value is string => typeof value === "string"));
      parameterTexts(property, depth + 1, names, descriptions);
    }
  if (items) parameterTexts(items, depth + 1, names, descriptions);
  return { names, descriptions };
}

function fieldTerms(definition: ToolDefinition, groupTerms: string[]): Record<Field, string[]> {
  const parameters = parameterTexts(definition.function.parameters);
  return {
    name: tokenize(definition.function.name),
    description: tokenize(definition.function.description),
    parameterNames: tokenize(parameters.names.join(" ")),
    parameterDescriptions: tokenize(parameters.descriptions.join(" ")),
    group: groupTerms,
  };
}

/** Built once per catalog version and shared by every search of it; nothing in it changes after this returns. */
export function buildSearchIndex(entries: readonly SearchEntry[]): SearchIndex {
  const groupTermsByGroup = new Map<string, string[]>();
  const docs = entries.map(({ definition, groupId, groupDescription }) => {
    const key = `${groupId}\n${groupDescription}`;
    let groupTerms = groupTermsByGroup.get(key);
    if (!groupTerms) groupTermsByGroup.set(key, (groupTerms = tokenize(`${groupId} ${groupDescription}`)));
    return fieldTerms(definition, groupTerms);
  });

  const averageLength = Object.fromEntries(
    FIELD_NAMES.map((field) => [field, docs.reduce((sum, doc) => sum + doc[field].length, 0) / Math.max(1, docs.length) || 1]),
  ) as Record<Field, number>;

  const termIds = new Map<string, number>();
  const building: Array<{ term: string; docs: number[]; weights: number[] }> = [];
  const termFrequency: number[] = [];
  docs.forEach((doc, index) => {
    const touched: number[] = [];
    for (const field of FIELD_NAMES) {
      const { weight, lengthNormalization: b } = FIELDS[field];
      const increment = weight / (1 - b + (b * doc[field].length) / averageLength[field]);
      for (const term of doc[field]) {
        let id = termIds.get(term);
        if (id === undefined) {
          termIds.set(term, (id = building.length));
          building.push({ term, docs: [], weights: [] });
          termFrequency.push(0);
        }
        if (termFrequency[id] === 0) touched.push(id);
        termFrequency[id] = termFrequency[id]! + increment;
      }
    }
    for (const id of touched) {
      const tf = termFrequency[id]!;
      building[id]!.docs.push(index);
      building[id]!.weights.push(tf / (K1 + tf));
      termFrequency[id] = 0;
    }
  });

  const size = entries.length;
  const idf = new Map<string, number>();
  const postings = new Map<string, Posting>();
  for (const { term, ...posting } of building) {
    const df = posting.docs.length;
    idf.set(term, Math.log(1 + (size - df + 0.5) / (df + 0.5)));
    postings.set(term, { docs: Int32Array.from(posting.docs), weights: Float32Array.from(posting.weights) });
  }

  return Object.freeze({
    size,
    names: Object.freeze(entries.map((entry) => entry.definition.function.name)),
    groupIds: Object.freeze(entries.map((entry) => entry.groupId)),
    nameTerms: Object.freeze(docs.map((doc) => Object.freeze([...new Set(doc.name)]))),
    idf,
    postings,
  });
}
