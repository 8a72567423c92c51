import { expand } from "brace-expansion";
import type { DoubleQuotedChild, Word, WordPart } from "unbash";

/**
 * A word as a command receives it: its value after quote removal, whether bash replaces part of it with what the
 * environment holds when the line runs (a variable, a substitution, arithmetic), which no reading of the line can know,
 * and whether it holds braces or a glob, which bash expands the same way whatever the environment.
 */
export type ShellWord = { value: string; expanded: boolean; braces: boolean; glob: boolean; variants?: readonly string[] };

const EXPANDING: ReadonlySet<WordPart["type"] | DoubleQuotedChild["type"]> = new Set([
  "SimpleExpansion",
  "ParameterExpansion",
  "CommandExpansion",
  "ArithmeticExpansion",
  "ProcessSubstitution",
]);

const expands = (part: WordPart): boolean =>
  EXPANDING.has(part.type) || ((part.type === "DoubleQuoted" || part.type === "LocaleString") && part.parts.some((child) => EXPANDING.has(child.type)));

export function shellWord(word: Word): ShellWord {
  const parts = word.parts ?? [];
  return {
    value: word.value,
    expanded: parts.some(expands),
    braces: parts.some((part) => part.type === "BraceExpansion"),
    glob: parts.some((part) => part.type === "Glob" || part.type === "ExtendedGlob"),
  };
}

/** A word read from text split as arguments, not by the shell (an `env -S` string): what it says is what runs. */
export const plainWord = (value: string): ShellWord => ({ value, expanded: false, braces: false, glob: false });

/** Bash forms a different word than the one written: what runs under this name is known only when it runs. */
export const isDynamic = (word: ShellWord) => word.expanded || word.braces || word.glob;

const MAX_BRACE_WORDS = 64;

/** The words braces expand to (`src/{a,b}` is `src/a` and `src/b`), or undefined when there would be too many to list. */
export function braceWords(word: ShellWord): string[] | undefined {
  if (!word.braces) return [word.value];
  const words = expand(word.value, { max: MAX_BRACE_WORDS + 1 });
  return words.length > MAX_BRACE_WORDS ? undefined : words;
}
