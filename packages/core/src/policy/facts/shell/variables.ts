import { forEachChild } from "unbash";
import type { SyntaxNode, Word, WordPart } from "unbash";
import { isNumber } from "./arithmetic";

/** What a variable may hold, from every place the line sets it: its values, or unknown (read, computed, substituted). */
export type Variables = ReadonlyMap<string, readonly string[] | "unknown">;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Arithmetic assigns a number, whatever the expression (whose own words are checked where it is written). */
const ARITHMETIC_RESULT = "0";
const SETS_ITS_OPERANDS = new Set(["read", "mapfile", "readarray", "getopts", "printf", "let", "unset", "local", "declare", "typeset", "export", "readonly", "wait"]);
const ASSIGNING = new Set(["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="]);

/** A word whose value the environment does not change (globs and braces expand the same way wherever the line runs). */
const FIXED: ReadonlySet<WordPart["type"]> = new Set(["Literal", "SingleQuoted", "AnsiCQuoted", "Glob", "ExtendedGlob", "BraceExpansion"]);
const isFixed = (word: Word) => (word.parts ?? []).every((part) => FIXED.has(part.type) || (part.type === "DoubleQuoted" && part.parts.every((child) => child.type === "Literal")));

/**
 * The variables a line sets, read anywhere in it (an assignment in a subshell or a branch counts as if it always ran,
 * so every value it may hold is known, or none is). Variables the line does not set are not in the map.
 */
export function lineVariables(script: SyntaxNode, inherited: Variables): Variables {
  const values = new Map<string, string[] | "unknown">(inherited as Map<string, string[] | "unknown">);
  const set = (name: string, value: string | undefined) => {
    const known = values.get(name);
    if (known === "unknown") return;
    if (value === undefined) values.set(name, "unknown");
    else values.set(name, [...(known ?? []), value]);
  };
  const visit = (node: SyntaxNode): void => {
    switch (node.type) {
      case "Assignment":
        set(node.name, node.value.type === "Word" && !node.index && !node.append && isFixed(node.value) ? node.value.value : undefined);
        break;
      case "For":
      case "Select":
        if (!node.wordlist) set(node.name.value, undefined);
        else for (const word of node.wordlist) set(node.name.value, isFixed(word) ? word.value : undefined);
        break;
      case "Command":
        if (node.name && SETS_ITS_OPERANDS.has(node.name.value))
          for (const argument of node.args) if (argument.type === "Word" && NAME.test(argument.value)) set(argument.value, undefined);
        break;
      case "ArithmeticBinary":
        if (ASSIGNING.has(node.operator) && node.left.type === "ArithmeticWord") set(node.left.value, ARITHMETIC_RESULT);
        break;
      case "ArithmeticUnary":
        if ((node.operator === "++" || node.operator === "--") && node.operand.type === "ArithmeticWord") set(node.operand.value, ARITHMETIC_RESULT);
        break;
      case "ParameterExpansion":
        if (node.operation?.type === "Default" && (node.operation.operator === "=" || node.operation.operator === ":=")) set(node.parameter, undefined);
        break;
    }
    forEachChild(node, visit);
  };
  visit(script);
  return values;
}

/** A variable bash may evaluate as arithmetic without running anything: every value the line gives it is a number. */
export const holdsNumbers = (variables: Variables, name: string) => {
  const values = variables.get(name);
  return Array.isArray(values) && values.length > 0 && values.every((value) => isNumber(value));
};

const MAX_VARIANTS = 64;

/** The name a part expands, when it is a plain `$name` or `${name}`; undefined for anything else. */
function plainName(part: WordPart): string | undefined {
  if (part.type === "SimpleExpansion") return NAME.test(part.text.slice(1)) ? part.text.slice(1) : undefined;
  if (part.type === "ParameterExpansion" && !part.operation && !part.index && !part.prefix) return part.parameter;
  return undefined;
}

/**
 * The words a word may become when each of its expansions is a variable the line sets to known values (`F=/etc/passwd;
 * cat $F`), or undefined when any part is something else or the values are too many to list.
 */
export function variantsOf(word: Word, variables: Variables): string[] | undefined {
  let variants = [""];
  const append = (choices: readonly string[]) => {
    variants = variants.flatMap((before) => choices.map((choice) => before + choice));
    return variants.length <= MAX_VARIANTS;
  };
  const parts = (list: readonly WordPart[]): boolean =>
    list.every((part) => {
      if (part.type === "Literal" || part.type === "SingleQuoted" || part.type === "AnsiCQuoted") return append([part.value]);
      if (part.type === "DoubleQuoted") return parts(part.parts as readonly WordPart[]);
      if (part.type === "Glob" || part.type === "BraceExpansion") return append([part.text]);
      const name = plainName(part);
      const values = name === undefined ? undefined : variables.get(name);
      return Array.isArray(values) && append(values);
    });
  return parts(word.parts ?? []) ? variants : undefined;
}
