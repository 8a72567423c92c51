import type { ShellWord } from "./word";

/** How a program reads its options: which take a value (the next word, or attached as `-ofile` / `--out=file`). */
export type OptionSyntax = { valued?: readonly string[] };

export type Option = { name: string; value: ShellWord | undefined; at: number };

/**
 * A command's options up to its first operand (or `--`), read as getopt reads them: a cluster `-rfv` is three flags,
 * a valued short option takes the rest of its cluster or the next word, `--name=value` carries its value. `operand` is
 * the index of the first word after the options. `unknown` lists the options the syntax does not name: each may take
 * the next word as its value, which a reader of the line cannot tell.
 */
export function readOptions(words: readonly ShellWord[], from: number, syntax: OptionSyntax): { options: Option[]; operand: number; unknown: number[] } {
  const valued = new Set(syntax.valued ?? []);
  const options: Option[] = [];
  const unknown: number[] = [];
  let i = from;
  for (; i < words.length; i++) {
    const word = words[i]!.value;
    if (word === "--") return { options, operand: i + 1, unknown };
    if (!word.startsWith("-") || word === "-") break;
    if (word.startsWith("--")) {
      const equals = word.indexOf("=");
      const name = equals === -1 ? word : word.slice(0, equals);
      if (equals !== -1) options.push({ name, value: { ...words[i]!, value: word.slice(equals + 1) }, at: i });
      else if (valued.has(name)) options.push({ name, value: words[++i], at: i - 1 });
      else {
        options.push({ name, value: undefined, at: i });
        unknown.push(i);
      }
      continue;
    }
    for (let letter = 1; letter < word.length; letter++) {
      const name = `-${word[letter]}`;
      if (!valued.has(name)) {
        options.push({ name, value: undefined, at: i });
        continue;
      }
      const rest = word.slice(letter + 1);
      options.push({ name, value: rest ? { ...words[i]!, value: rest } : words[++i], at: rest ? i : i - 1 });
      break;
    }
  }
  return { options, operand: i, unknown };
}

export const named = (options: readonly Option[], names: readonly string[]) => options.filter((option) => names.includes(option.name));

/** Whether `word` is the long option `--name` or an abbreviation of it at least `shortest` characters long, as GNU and git accept. */
export function abbreviates(word: string, name: string, shortest: number): boolean {
  const option = word.split("=", 1)[0]!;
  return option.length >= shortest && option.length <= name.length && name.startsWith(option);
}

const MAX_CLUSTER = 32;

/** The options a command was given, as policies see them: clusters split (`-rfv` is `-r`, `-f`, `-v`), values dropped (`--force`). */
export function flagsOf(words: readonly ShellWord[]): string[] {
  const flags = new Set<string>();
  for (const { value } of words) {
    if (value === "--") break;
    if (!value.startsWith("-") || value === "-") continue;
    if (value.startsWith("--")) flags.add(value.split("=", 1)[0]!);
    else if (value.length > MAX_CLUSTER) flags.add(value);
    else for (const letter of value.slice(1)) flags.add(`-${letter}`);
  }
  return [...flags];
}
