import { forAgent } from "./schema";
import type { ToolDefinition } from "./schema";

/** How many tokens a text is for a model (o200k_base, the encoding of OpenAI's current models). */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/** The tokenizer (its ranks are megabytes), loaded on the first count: never at a cold start, never on a guarded call. */
export const loadTokenCounter = (): Promise<TokenCounter> =>
  (loading ??= import("gpt-tokenizer/encoding/o200k_base").then(({ countTokens }) => (text: string) => countTokens(text)));

const counted = new WeakMap<ToolDefinition, number>();

/**
 * The tokens of one tool as an agent receives it: its OpenAI function definition, x-toolgate stripped, as JSON.
 * Counted once per definition object, and a catalog version's definitions are the same objects for as long as it lasts.
 */
export function definitionTokens(count: TokenCounter, definition: ToolDefinition): number {
  let tokens = counted.get(definition);
  if (tokens === undefined) {
    tokens = count(JSON.stringify(forAgent(definition)));
    counted.set(definition, tokens);
  }
  return tokens;
}

export const totalTokens = (count: TokenCounter, definitions: readonly ToolDefinition[]) =>
  definitions.reduce((sum, definition) => sum + definitionTokens(count, definition), 0);
