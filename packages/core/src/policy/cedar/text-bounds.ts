import { positionOf } from "./problem";
import type { PolicyProblem } from "./problem";

/**
 * How deep brackets may nest in a policy's text, and how many operators it may hold. Cedar's parser recurses on the
 * process's stack: 150 nested parentheses corrupted its memory, and a few thousand chained operators or a hundred
 * nested sets overflowed the stack, so a text past these is refused before the engine reads it.
 */
export const MAX_TEXT_NESTING = 40;
export const MAX_TEXT_OPERATORS = 512;

const OPENING = new Set(["(", "[", "{"]);
const CLOSING = new Set([")", "]", "}"]);
/** Characters that make up Cedar's operators: each run of them counts as one (`&&`, `==`, `!`, `-`, `.`...). */
const OPERATOR_CHARACTERS = new Set(["&", "|", "!", "=", "<", ">", "+", "-", "*", "."]);
const OPERATOR_WORDS = new Set(["if", "has", "like", "in", "is"]);
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Where a string literal that starts at `start` (its opening quote) ends: past its closing quote, or the text's end. */
function pastString(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === "\\") at++;
    else if (text[at] === '"') return at + 1;
  }
  return text.length;
}

/**
 * Reads the text as Cedar's lexer would (string literals and `//` comments hold no brackets or operators) and counts
 * bracket nesting and operators; a problem when either is past its bound, undefined otherwise. Brackets that do not
 * match are left to Cedar, which says where.
 */
export function textBoundsProblem(text: string): PolicyProblem | undefined {
  let depth = 0;
  let deepest = 0;
  let operators = 0;
  for (let at = 0; at < text.length; ) {
    const character = text[at]!;
    if (character === '"') at = pastString(text, at);
    else if (character === "/" && text[at + 1] === "/") at = text.indexOf("\n", at) === -1 ? text.length : text.indexOf("\n", at);
    else if (OPENING.has(character)) {
      deepest = Math.max(deepest, ++depth);
      if (deepest > MAX_TEXT_NESTING)
        return { message: `The policy's brackets nest more than ${MAX_TEXT_NESTING} levels deep; toolgate reads at most ${MAX_TEXT_NESTING}.`, ...where(text, at) };
      at++;
    } else if (CLOSING.has(character)) {
      depth = Math.max(0, depth - 1);
      at++;
    } else if (OPERATOR_CHARACTERS.has(character)) {
      operators++;
      while (at < text.length && OPERATOR_CHARACTERS.has(text[at]!)) at++;
    } else if (WORD.test(((WORD.lastIndex = at), text))) {
      const word = text.slice(at, WORD.lastIndex);
      if (OPERATOR_WORDS.has(word)) operators++;
      at = WORD.lastIndex;
    } else at++;
    if (operators > MAX_TEXT_OPERATORS)
      return {
        message: `The policy holds more than ${MAX_TEXT_OPERATORS} operators; toolgate reads at most ${MAX_TEXT_OPERATORS}. Split it into several policies, or name many values at once with a set: context.command.program in ["a", "b"].`,
        ...where(text, at),
      };
  }
  return undefined;
}

const where = (text: string, offset: number) => ({ start: offset, end: offset + 1, ...positionOf(text, offset) });
