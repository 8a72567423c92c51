import { parse } from "unbash";
import type { Assignment, CommandArgument, Redirection, Word } from "unbash";
import { analyseCommand } from "./command";
import { writtenKey } from "./interpreters";
import type { AnalysedCommand, CommandInput, PathWord } from "./types";
import { walkScript } from "./walk";
import type { FoundCommand } from "./walk";
import { holdsNumbers, lineVariables, variantsOf } from "./variables";
import type { Variables } from "./variables";
import { shellWord } from "./word";
import type { ShellWord } from "./word";

/** At most this many simple commands in one line, counting those in substitutions, shell lines handed on and wrapped commands. */
export const MAX_COMMANDS = 256;
/** At most this many levels of subshells, compound commands, substitutions, wrappers and shell lines handed to a shell. */
export const MAX_NESTING = 16;
/** At most this many files named in one line: each is a question to the policies, as each simple command is. */
export const MAX_PATHS = 256;

/** What a command line would run, as bash reads it. */
export type ShellLine = {
  commands: AnalysedCommand[];
  /** Files a compound command's redirections name (`{ …; } > file`), which belong to no one simple command. */
  paths: PathWord[];
  substitution: boolean;
  /** A function defined on the line calls itself in the background or through a pipe. */
  forkBomb: boolean;
};

export type LineProblem = { problem: string; code: "unreadable_command" | "command_too_complex" };

type Reading = ShellLine & { written: Set<string>; counted: number; deepest: number; errors: Set<string> };

/** Reads a shell line: every simple command it would run, with its program, options, files and what cannot be known. */
export function readShellLine(text: string): ShellLine | LineProblem {
  const reading: Reading = { commands: [], paths: [], substitution: false, forkBomb: false, written: new Set(), counted: 0, deepest: 0, errors: new Set() };
  try {
    readLine(text, 0, reading, "", new Map());
  } catch (error) {
    // The parser reads nested substitutions recursively: one nested hundreds deep exhausts the stack before any limit.
    if (!(error instanceof RangeError)) throw error;
    reading.deepest = Number.POSITIVE_INFINITY;
  }
  if (reading.errors.size) return { code: "unreadable_command", problem: unreadable([...reading.errors]) };
  if (reading.counted > MAX_COMMANDS)
    return {
      code: "command_too_complex",
      problem: `The line runs more than ${MAX_COMMANDS} simple commands (counting those in substitutions, wrapped commands and shell lines given to a shell); toolgate checks at most ${MAX_COMMANDS} in one call. Split it into several calls.`,
    };
  if (reading.deepest > MAX_NESTING)
    return {
      code: "command_too_complex",
      problem: `The line nests deeper than ${MAX_NESTING} levels (subshells, compound commands, substitutions, wrapped commands and shell lines given to a shell); toolgate checks at most ${MAX_NESTING}. Send a flatter command.`,
    };
  const named = new Set([...reading.commands.flatMap((command) => command.paths), ...reading.paths].map((path) => path.value)).size;
  if (named > MAX_PATHS)
    return {
      code: "command_too_complex",
      problem: `The line names ${named} files; toolgate checks at most ${MAX_PATHS} in one call. Split it into several calls, or name a directory or a glob instead.`,
    };
  const { commands, paths, substitution, forkBomb } = reading;
  return { commands, paths, substitution, forkBomb };
}

const reach = (reading: Reading, depth: number) => void (reading.deepest = Math.max(reading.deepest, depth));

const overLimits = (reading: Reading) => reading.counted > MAX_COMMANDS || reading.deepest > MAX_NESTING || reading.errors.size > 0;

function readLine(text: string, depth: number, reading: Reading, where: string, inherited: Variables): void {
  reach(reading, depth);
  if (overLimits(reading)) return;
  const script = parse(text);
  const variables = lineVariables(script, inherited);
  walkScript(script, depth, {
    command: (found) => {
      if (overLimits(reading)) return;
      reach(reading, found.depth);
      if (found.caller !== undefined && found.node.name?.value === found.caller && (found.background || found.inPipeline)) reading.forkBomb = true;
      for (const path of redirectWrites(found.node.redirects)) reading.written.add(writtenKey(path));
      readCommand(inputOf(found, variables), found.depth, reading, variables);
    },
    arithmetic: (kind, at) => {
      reach(reading, at);
      reading.counted += 1;
      reading.commands.push({ text: kind, program: kind, flags: [], codeExecution: false, dynamic: true, paths: [] });
    },
    redirections: (redirects) => reading.paths.push(...redirectPaths(redirects, variables)),
    substitution: () => void (reading.substitution = true),
    error: (message) => void reading.errors.add(`${message}${where}`),
    tooDeep: (at) => reach(reading, at),
  }, { holdsNumber: (name) => holdsNumbers(variables, name), maxDepth: MAX_NESTING });
}

function readCommand(input: CommandInput, depth: number, reading: Reading, variables: Variables): void {
  reading.counted += 1;
  reach(reading, depth);
  if (overLimits(reading)) return;
  const { command, follow } = analyseCommand(input, reading);
  if (command) {
    reading.commands.push(command);
    for (const path of writtenBy(command, input)) reading.written.add(writtenKey(path));
  }
  for (const also of follow.also ?? []) reading.commands.push(also);
  for (const wrapped of follow.wrapped ?? []) readCommand(wrapped, depth + 1, reading, variables);
  for (const line of follow.lines ?? []) {
    if (line.expanded && command) command.dynamic = true;
    else readLine(line.value, depth + 1, reading, ` (in the shell line given to ${command?.program ?? "a program"})`, variables);
  }
}

function inputOf(found: FoundCommand, variables: Variables): CommandInput {
  const { node } = found;
  return {
    words: [...(node.name ? [shellWord(node.name)] : []), ...node.args.map((argument) => argumentWord(argument, variables))],
    assignments: node.prefix.flatMap((part) => (part.type === "Assignment" ? [{ name: part.name, value: assignedValue(part) }] : [])),
    stdin: found.stdin,
    paths: redirectPaths(node.redirects, variables),
    reevaluated: found.reevaluated,
  };
}

/** A word, with what it may become where its expansions are variables the line sets to known values. */
function wordOf(word: Word, variables: Variables): ShellWord {
  const read = shellWord(word);
  if (!read.expanded) return read;
  const variants = variantsOf(word, variables);
  return variants ? { ...read, variants } : read;
}

/** An argument of `export`, `declare`, `local` and the like, which the parser reads as an assignment: `name=value`. */
function argumentWord(argument: CommandArgument, variables: Variables): ShellWord {
  if (argument.type === "Word") return wordOf(argument, variables);
  const index = argument.index ? `[${argument.index.value}]` : "";
  const value = `${argument.name}${index}${argument.append ? "+=" : "="}${assignedValue(argument)}`;
  const words = argument.value.type === "Word" ? [argument.value] : argument.value.elements;
  return { value, expanded: words.some((word) => shellWord(word).expanded), braces: false, glob: false };
}

const assignedValue = (assignment: Assignment) =>
  assignment.value.type === "Word" ? assignment.value.value : `(${assignment.value.elements.map((element) => element.value).join(" ")})`;

const FILE_OPERATORS = new Set([">", ">>", "<", "<>", ">|", "&>", "&>>"]);
const WRITE_OPERATORS = new Set([">", ">>", "<>", ">|", "&>", "&>>", ">&"]);

const redirectsToFile = (redirect: Redirection) =>
  redirect.type === "Redirect" &&
  redirect.target !== undefined &&
  (FILE_OPERATORS.has(redirect.operator) || ((redirect.operator === ">&" || redirect.operator === "<&") && !/^(\d+|-)$/.test(redirect.target.value)));

/** Every file a redirection names is a path, `> out.txt` too; its location is unknown where bash fills part of it in. */
function redirectPaths(redirects: readonly Redirection[], variables: Variables): PathWord[] {
  return redirects.flatMap((redirect) => {
    if (redirect.type !== "Redirect" || !redirect.target || !redirectsToFile(redirect)) return [];
    const word = wordOf(redirect.target, variables);
    if (word.variants) return word.variants.map((value) => ({ value, known: true }));
    return [{ value: word.value, known: !word.expanded }];
  });
}

const redirectWrites = (redirects: readonly Redirection[]) =>
  redirects.flatMap((redirect) => (redirect.type === "Redirect" && redirect.target && redirectsToFile(redirect) && WRITE_OPERATORS.has(redirect.operator) ? [redirect.target.value] : []));

/** The files a command writes that a later command of the line could run: its redirections, `tee`'s operands, a download's output. */
function writtenBy(command: AnalysedCommand, input: CommandInput): string[] {
  const [, ...args] = input.words;
  const written: string[] = [];
  if (command.program === "tee") written.push(...args.filter((word) => !word.value.startsWith("-")).map((word) => word.value));
  if (["cp", "mv", "install", "ln"].includes(command.program) && args.length) written.push(args.at(-1)!.value);
  args.forEach((word, index) => {
    if ((command.program === "curl" && (word.value === "-o" || word.value === "--output")) || (command.program === "wget" && (word.value === "-O" || word.value === "--output-document")))
      if (args[index + 1]) written.push(args[index + 1]!.value);
  });
  return written;
}

const unreadable = (messages: string[]) =>
  `The shell command line cannot be read: the parser reports ${messages.map((message) => `"${message}"`).join(", ")}. ` +
  "Close every quote, bracket and substitution, or send a simpler command.";
