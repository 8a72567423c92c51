import { BUILTINS } from "./builtins";
import { runsItsValue } from "./environment";
import { fd, find } from "./find";
import { git } from "./git";
import { ALWAYS_CODE, INTERPRETERS, RUNS_OPTIONS, SHELLS, runsWrittenFile, shell } from "./interpreters";
import { flagsOf } from "./options";
import { PACKAGE_PROGRAMS, installer, packageRunner } from "./packages";
import { argumentPaths } from "./paths";
import { SCRIPTED } from "./scripts";
import type { AnalysedCommand, CommandInput, Follow, LineSoFar, ProgramReader } from "./types";
import { WRAPPERS, wrapper } from "./wrappers";
import { isDynamic } from "./word";

const alwaysCode: ProgramReader = (command) => void (command.codeExecution = true);

/** Files that say what a program runs: written on the line, then the program run, is code the line wrote. */
const CONFIGURED_BY: ReadonlyArray<[RegExp, RegExp]> = [
  [/^(npm|npx|yarn|pnpm|bun|node)$/, /(^|\/)(package\.json|\.npmrc|\.yarnrc(\.yml)?)$/],
  [/^(make|gmake)$/, /(^|\/)(GNUmakefile|[Mm]akefile)$/],
  [/^git$/, /(^|\/)\.git\/(config|hooks\/.*)$|(^|\/)\.gitattributes$/],
  [/^(pip[0-9.]*|python[0-9.]*|uv|poetry)$/, /(^|\/)(setup\.py|setup\.cfg|pyproject\.toml|conftest\.py)$/],
  [/^cargo$/, /(^|\/)(build\.rs|Cargo\.toml|\.cargo\/config(\.toml)?)$/],
  [/^(just|task)$/, /(^|\/)([Jj]ustfile|Taskfile\.ya?ml)$/],
];

const runsWrittenConfiguration = (program: string, line: LineSoFar) =>
  CONFIGURED_BY.some(([programs, files]) => programs.test(program) && [...line.written].some((path) => files.test(path)));

const WRAPPER_READERS = new Map([...WRAPPERS].map(([name, syntax]) => [name, wrapper(syntax)]));

/** Every reader a program's arguments go through: what it runs, what code it executes, what it stands for. */
function readersOf(program: string): ProgramReader[] {
  const readers: ProgramReader[] = [];
  const add = (reader: ProgramReader | undefined) => reader && readers.push(reader);
  add(WRAPPER_READERS.get(program));
  add(BUILTINS.get(program));
  add(SCRIPTED.get(program));
  add(RUNS_OPTIONS.get(program));
  if (program === "git") add(git);
  if (program === "find") add(find);
  if (program === "fd" || program === "fdfind") add(fd);
  if (SHELLS.includes(program)) add(shell);
  if (ALWAYS_CODE.has(program)) add(alwaysCode);
  if (PACKAGE_PROGRAMS.has(program)) add(packageRunner);
  add(installer(program));
  for (const [name, reader] of INTERPRETERS) if (name.test(program)) add(reader);
  return readers;
}

/**
 * `/usr/bin/git` is `git`, `./rm` is `rm`, and `RM` is `rm` too: rules name programs, not where they are installed,
 * and a case-insensitive file system (macOS's, where an agent's runtime may run) finds `RM` as `rm`.
 */
export const programName = (value: string) => (value.includes("/") ? value.slice(value.lastIndexOf("/") + 1) || value : value).toLowerCase();

/** What one simple command does: itself as the policies see it, then the commands it runs and the shell lines it hands on. */
export function analyseCommand(input: CommandInput, line: LineSoFar): { command: AnalysedCommand | undefined; follow: Follow } {
  const poisoned = input.assignments.some((assignment) => runsItsValue(assignment.name));
  const [name, ...args] = input.words;
  if (name === undefined) {
    if (!poisoned && !input.reevaluated && !input.paths.length) return { command: undefined, follow: {} };
    const text = input.assignments.map((assignment) => `${assignment.name}=${assignment.value}`).join(" ");
    return { command: { text, program: "", flags: [], codeExecution: poisoned, dynamic: input.reevaluated, paths: [...input.paths] }, follow: {} };
  }
  const dynamic = isDynamic(name);
  const program = dynamic ? name.value : programName(name.value);
  const command: AnalysedCommand = {
    text: [program, ...args.map((word) => word.value)].join(" "),
    program,
    flags: flagsOf(args),
    codeExecution: poisoned || runsWrittenFile(name.value.includes("/") ? name : undefined, line) || runsWrittenConfiguration(program, line),
    dynamic: input.reevaluated || dynamic,
    paths: [...input.paths, ...argumentPaths(dynamic ? "" : program, args)],
  };
  if (dynamic) return { command, follow: {} };
  const follow = merged(readersOf(command.program).map((reader) => reader(command, args, input, line) ?? {}));
  const code = new Set([...(follow.code ?? []), ...(follow.lines ?? [])].map((word) => word.value));
  command.paths = [...new Map(command.paths.filter((path) => !code.has(path.value)).map((path) => [`${path.known}\u0000${path.value}`, path])).values()];
  return { command, follow };
}

function merged(follows: readonly Follow[]): Follow {
  return {
    wrapped: follows.flatMap((follow) => follow.wrapped ?? []),
    lines: follows.flatMap((follow) => follow.lines ?? []),
    also: follows.flatMap((follow) => follow.also ?? []),
    code: follows.flatMap((follow) => follow.code ?? []),
  };
}

