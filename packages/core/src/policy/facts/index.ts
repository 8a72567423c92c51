import type { ToolDefinition } from "../../tool/schema";
import { resolvePath, resolvePathFrom } from "./path";
import { readShellLine } from "./shell/line";
import type { LineProblem } from "./shell/line";
import type { PathWord } from "./shell/types";
import { sizeFacts } from "./size";
import { namesOf } from "./arguments";

export { commandArguments, pathArguments } from "./arguments";

export type PathFact = { path: string; outsideWorkspace: boolean };

/** One simple command of a command line as the policies see it. */
export type CommandFact = { command: string; program: string; flags: string[]; codeExecution: boolean; dynamic: boolean; paths: PathFact[] };

/** What argument policies see of one call, derived from its already validated arguments. */
export type CallFacts = {
  /** The tool's path arguments, and files a command line's compound commands redirect to. */
  paths: PathFact[];
  commands: CommandFact[];
  commandSubstitution: boolean;
  forkBomb: boolean;
  inputBytes: number;
  largestStringBytes: number;
};

export type FactsProblem = LineProblem & { argument: string };

/** Files a command may always name: they hold nothing of the machine's. */
const DEVICES = new Set(["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

const argument = (args: Record<string, unknown>, name: string) => (Object.hasOwn(args, name) ? args[name] : undefined);

/** Where relative paths in a command line start: the call's working directory (`cwd`), else the workspace root. */
const WORKING_DIRECTORY = "cwd";

function commandPath(word: PathWord, base: string | null, root: string | null): PathFact {
  if (!word.known) return { path: word.value, outsideWorkspace: root !== null };
  const resolved = resolvePathFrom(word.value, base, root);
  return DEVICES.has(resolved.path) || resolved.path.startsWith("/dev/fd/") ? { ...resolved, outsideWorkspace: false } : resolved;
}

/** Every path of a call: its path arguments' and those its command lines name (for a refusal's message). */
export const everyPath = (facts: CallFacts): PathFact[] => [...facts.paths, ...facts.commands.flatMap((command) => command.paths)];

/** The call's facts, or why a command argument cannot be read or checked (the call is then refused, never guessed at). */
export function callFacts(definition: ToolDefinition, args: Record<string, unknown>, root: string | null): CallFacts | FactsProblem {
  const names = namesOf(definition);
  const paths: PathFact[] = [];
  let base = root;
  for (const name of names.paths) {
    const value = argument(args, name);
    if (typeof value === "string") {
      const resolved = resolvePath(value, root);
      paths.push(resolved);
      if (name === WORKING_DIRECTORY) base = resolved.path;
    } else if (Array.isArray(value)) for (const element of value) if (typeof element === "string") paths.push(resolvePath(element, root));
  }
  const commands: CommandFact[] = [];
  let commandSubstitution = false;
  let forkBomb = false;
  for (const name of names.commands) {
    const value = argument(args, name);
    if (typeof value !== "string") continue;
    const line = readShellLine(value);
    if ("problem" in line) return { ...line, argument: name };
    for (const command of line.commands)
      commands.push({ command: command.text, program: command.program, flags: command.flags, codeExecution: command.codeExecution, dynamic: command.dynamic, paths: command.paths.map((word) => commandPath(word, base, root)) });
    paths.push(...line.paths.map((word) => commandPath(word, base, root)));
    commandSubstitution ||= line.substitution;
    forkBomb ||= line.forkBomb;
  }
  return { paths, commands, commandSubstitution, forkBomb, ...sizeFacts(args) };
}
