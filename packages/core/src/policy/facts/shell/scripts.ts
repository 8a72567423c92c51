import { runsWrittenFile } from "./interpreters";
import { readOptions } from "./options";
import type { ProgramReader } from "./types";
import type { ShellWord } from "./word";

/** The script a program takes as its first operand unless an option gives it (`sed -e`, `awk -f`), and where its operands start. */
function scriptOf(args: readonly ShellWord[], valued: readonly string[], scriptOptions: readonly string[], fileOptions: readonly string[]) {
  const { options, operand } = readOptions(args, 0, { valued: [...valued, ...scriptOptions, ...fileOptions] });
  const given = options.filter((option) => scriptOptions.includes(option.name)).flatMap((option) => (option.value ? [option.value] : []));
  const files = options.filter((option) => fileOptions.includes(option.name)).flatMap((option) => (option.value ? [option.value] : []));
  if (given.length || files.length) return { scripts: given, files, operands: operand };
  return { scripts: args[operand] ? [args[operand]!] : [], files, operands: operand + 1 };
}

/** awk runs commands through `system(…)`, `"cmd" | getline` and `print | "cmd"`. */
const AWK_RUNS = /\bsystem\s*\(|(^|[^|])\|(?!\|)/;

const awk: ProgramReader = (command, args, _input, line) => {
  const { scripts, files } = scriptOf(args, ["-F", "-v", "--field-separator", "--assign"], ["-e", "--source"], ["-f", "--file"]);
  if (scripts.some((script) => script.expanded || AWK_RUNS.test(script.value)) || files.some((file) => runsWrittenFile(file, line))) command.codeExecution = true;
  for (const script of scripts) for (const [, file] of script.value.matchAll(AWK_FILES)) command.paths.push({ value: file!, known: !script.expanded });
};

/**
 * What a GNU sed script does beyond editing its input: whether it runs a command (`e`, alone or as the flag of
 * `s///e`) and which files it reads or writes (`r`, `R`, `w`, `W`, the `w` flag of `s///`). Read command by command:
 * an address, then the command's letter; an `s` or `y` command's parts are skipped by their delimiter, and a file name
 * runs to the end of its line.
 */
export function readSed(script: string): { runs: boolean; files: string[] } {
  const files: string[] = [];
  let runs = false;
  let i = 0;
  const skipDelimited = (delimiter: string) => {
    for (i++; i < script.length && script[i] !== delimiter; i++) if (script[i] === "\\") i++;
    i++;
  };
  const fileName = () => {
    const end = script.indexOf("\n", i);
    const name = script.slice(i, end === -1 ? script.length : end).trim();
    if (name) files.push(name);
    i = end === -1 ? script.length : end;
  };
  while (i < script.length) {
    while (i < script.length && /[\s;0-9$,~!+]/.test(script[i]!)) i++;
    if (script[i] === "/") {
      skipDelimited("/");
      continue;
    }
    if (script[i] === "\\" && i + 1 < script.length) {
      i++;
      skipDelimited(script[i]!);
      continue;
    }
    const letter = script[i];
    if (letter === undefined) break;
    i++;
    if (letter === "e") runs = true;
    if ("rRwW".includes(letter)) {
      fileName();
      continue;
    }
    if (letter === "s" || letter === "y") {
      const delimiter = script[i];
      if (delimiter === undefined) break;
      skipDelimited(delimiter);
      i--;
      skipDelimited(delimiter);
      const flags = /^[^;\n}w]*/.exec(script.slice(i))![0];
      if (letter === "s" && flags.includes("e")) runs = true;
      i += flags.length;
      if (letter === "s" && script[i] === "w") {
        i++;
        fileName();
      }
      continue;
    }
    if (letter === "{" || letter === "}") continue;
    while (i < script.length && script[i] !== "\n" && script[i] !== ";" && script[i] !== "}") i++;
  }
  return { runs, files };
}

const sed: ProgramReader = (command, args, _input, line) => {
  const { scripts, files } = scriptOf(args, ["-l", "--line-length", "-s"], ["-e", "--expression"], ["-f", "--file"]);
  const sandboxed = args.some((word) => word.value === "--sandbox");
  if (!sandboxed && files.some((file) => runsWrittenFile(file, line))) command.codeExecution = true;
  for (const script of scripts) {
    const read = readSed(script.value);
    if (!sandboxed && (script.expanded || read.runs)) command.codeExecution = true;
    command.paths.push(...read.files.map((file) => ({ value: file, known: !script.expanded })));
  }
};

/** Files an awk program opens itself: `getline < "file"`, `print > "file"`, `print >> "file"`. */
const AWK_FILES = /(?:getline(?:\s+[A-Za-z_][A-Za-z0-9_]*)?\s*<|>>?)\s*"([^"]+)"/g;

export const SCRIPTED: ReadonlyMap<string, ProgramReader> = new Map([
  ["awk", awk],
  ["gawk", awk],
  ["mawk", awk],
  ["nawk", awk],
  ["sed", sed],
  ["gsed", sed],
]);

/** Operands that are a program's script or pattern rather than files: `grep PATTERN files`, `sed SCRIPT files`. */
export function scriptOperands(program: string, args: readonly ShellWord[]): Set<number> {
  const spec = PATTERN_FIRST.get(program);
  if (!spec) return new Set();
  const { options, operand } = readOptions(args, 0, { valued: [...spec.valued, ...spec.scripts, ...spec.files] });
  const scripts = options.filter((option) => spec.scripts.includes(option.name));
  const indexes = new Set(scripts.map((option) => (args[option.at + 1] === option.value ? option.at + 1 : option.at)));
  if (!scripts.length && !options.some((option) => spec.files.includes(option.name))) indexes.add(operand);
  return indexes;
}

type PatternFirst = { valued: string[]; scripts: string[]; files: string[] };

const GREP: PatternFirst = {
  valued: ["-A", "-B", "-C", "-m", "-g", "-t", "-T", "--glob", "--type", "--max-count", "--context", "--after-context", "--before-context", "-d", "-D"],
  scripts: ["-e", "--regexp"],
  files: ["-f", "--file"],
};
const AWK: PatternFirst = { valued: ["-F", "-v"], scripts: ["-e", "--source"], files: ["-f", "--file"] };

/** Programs whose first operand is a pattern or a script unless an option gives one (`-e`). */
const PATTERN_FIRST = new Map<string, PatternFirst>([
  ...["grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep"].map((name): [string, PatternFirst] => [name, GREP]),
  ["sed", { valued: ["-l", "--line-length"], scripts: ["-e", "--expression"], files: ["-f", "--file"] }],
  ["gsed", { valued: ["-l", "--line-length"], scripts: ["-e", "--expression"], files: ["-f", "--file"] }],
  ...["awk", "gawk", "mawk", "nawk"].map((name): [string, PatternFirst] => [name, AWK]),
  ["jq", { valued: ["--arg", "--argjson", "--slurpfile", "--rawfile", "--indent"], scripts: [], files: ["-f", "--from-file"] }],
]);
