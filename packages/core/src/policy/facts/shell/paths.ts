import { scriptOperands } from "./scripts";
import type { PathWord } from "./types";
import { braceWords } from "./word";
import type { ShellWord } from "./word";

/** Programs whose operands are text they print or compare, never files they open. */
const PRINTS = new Set(["echo", "printf", "expr", "basename", "dirname", "true", "false", ":", "which", "type", "command", "hash"]);

/** A word names a file when it holds a `/` or starts with `~` or `.`; a URL does not, unless it is a `file:` one. */
export function namesFile(value: string): string | undefined {
  if (value.startsWith("file://")) return value.slice("file://".length) || "/";
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return undefined;
  if (value.includes("/") || value.startsWith("~") || value.startsWith(".")) return value;
  return undefined;
}

/** A word's file, or its files where braces make several (`src/{a,b}`); its location unknown where bash fills part of it in. */
export function pathsOfWord(word: ShellWord, value = word.value, named = false): PathWord[] {
  if (word.variants && value === word.value) return word.variants.flatMap((variant) => pathsOfWord({ ...word, value: variant, expanded: false, variants: undefined }, variant, named));
  if (word.expanded) return named || namesFile(value) !== undefined ? [{ value, known: false }] : [];
  const words = braceWords({ ...word, value });
  if (words === undefined) return [{ value, known: false }];
  return words.flatMap((each) => {
    const file = named ? each : namesFile(each);
    return file === undefined ? [] : [{ value: file, known: true }];
  });
}

/** Where an option's value or an operand names a file after a marker: `curl -d @file`, `--output=file`, `dd of=file`. */
function valueFile(program: string, value: string): string | undefined {
  if (value.startsWith("@") && (program === "curl" || program === "http" || program === "wget")) return value.slice(1);
  if (program === "dd" && /^(if|of)=/.test(value)) return value.slice(3);
  if (value.startsWith("--") && value.includes("=")) return value.slice(value.indexOf("=") + 1);
  const form = /^[^=\s]+=@(.+)$/.exec(value);
  if (form && program === "curl") return form[1];
  return undefined;
}

/**
 * The words of a command's arguments that name files, as the workspace rule checks them: operands and option values
 * that hold a `/` or start with `~` or `.`, besides a program's pattern or script (`grep "/api" src`, `sed '/^$/d'`)
 * and what `echo` prints.
 */
export function argumentPaths(program: string, args: readonly ShellWord[]): PathWord[] {
  if (PRINTS.has(program)) return [];
  const scripts = scriptOperands(program, args);
  const paths: PathWord[] = [];
  args.forEach((word, index) => {
    if (scripts.has(index)) return;
    const { value } = word;
    const marked = valueFile(program, value);
    if (marked !== undefined) paths.push(...pathsOfWord(word, marked, !value.startsWith("--")));
    else if (!word.value.startsWith("-")) paths.push(...pathsOfWord(word));
  });
  return paths;
}
