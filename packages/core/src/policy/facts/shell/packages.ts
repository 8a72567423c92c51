import type { Follow, ProgramReader } from "./types";
import { wrapper } from "./wrappers";
import type { WrapperSyntax } from "./wrappers";

/** A package runner fetches and runs a package's program (`npx cowsay`): code from outside the line, and the command it names. */
function fetchesAndRuns(syntax: WrapperSyntax): ProgramReader {
  const run = wrapper(syntax);
  return (command, args, input, line) => {
    command.codeExecution = true;
    return run(command, args, input, line);
  };
}

const NPX = fetchesAndRuns({ valued: ["-p", "--package", "-w", "--workspace", "--node-options"], lineOptions: ["-c", "--call"] });
const RUNS_INSTALLED = wrapper({ valued: ["--with", "--python", "-p", "--env-file", "--directory", "--project", "--package", "--extra", "--group", "--index", "-n", "--name", "--gemfile"] });
const FETCHES = fetchesAndRuns({ valued: ["--from", "--with", "--python", "-p", "--spec", "--index-url", "-i"] });

/** `<program> <subcommand> …` forms that run a command: the subcommand and what each reading is. */
const SUBCOMMANDS = new Map<string, ReadonlyMap<string, ProgramReader>>([
  ["npm", new Map([["exec", NPX], ["x", NPX]])],
  ["pnpm", new Map([["dlx", NPX], ["exec", RUNS_INSTALLED]])],
  ["yarn", new Map([["dlx", NPX], ["exec", RUNS_INSTALLED]])],
  ["bun", new Map([["x", NPX]])],
  ["uv", new Map([["run", RUNS_INSTALLED], ["tool", ((command, args, input, line) => (args[0]?.value === "run" ? FETCHES(command, args.slice(1), input, line) : undefined)) as ProgramReader]])],
  ["pipx", new Map([["run", FETCHES]])],
  ["deno", new Map<string, ProgramReader>([["eval", (command) => void (command.codeExecution = true)], ["run", (command, args) => void (command.codeExecution ||= args.some(({ value }) => /^(https?|npm|jsr):/.test(value)))]])],
  ...["poetry", "pipenv", "pdm", "hatch", "rye", "pixi", "conda", "mamba"].map((name): [string, ReadonlyMap<string, ProgramReader>] => [name, new Map([["run", RUNS_INSTALLED]])]),
  ["bundle", new Map([["exec", RUNS_INSTALLED]])],
]);

const RUNNERS = new Map<string, ProgramReader>([
  ["npx", NPX],
  ["bunx", NPX],
  ["pnpx", NPX],
  ["uvx", FETCHES],
]);

/** The reader of a package manager's command that runs another program, if this is one. */
export const packageRunner: ProgramReader = (command, args, input, line): Follow | void => {
  const runner = RUNNERS.get(command.program);
  if (runner) return runner(command, args, input, line);
  const subcommands = SUBCOMMANDS.get(command.program);
  const at = args.findIndex((word) => !word.value.startsWith("-"));
  const reader = at === -1 ? undefined : subcommands?.get(args[at]!.value);
  return reader?.(command, args.slice(at + 1), input, line);
};

export const PACKAGE_PROGRAMS = new Set([...RUNNERS.keys(), ...SUBCOMMANDS.keys()]);

const INSTALLS = new Set(["install", "i", "add", "ci", "update", "upgrade", "download", "wheel"]);
const PIP_INDEXES = ["--index-url", "-i", "--extra-index-url", "-f", "--find-links"];
const NPM_REGISTRIES = ["--registry"];

/** A package named by where it comes from rather than by name: a URL, a git remote, a tarball. */
const NAMED_BY_SOURCE = /^(git\+|[a-z][a-z0-9+.-]*:\/\/|github:|gitlab:|bitbucket:|gist:)/i;

/**
 * Installing runs the package's build or install scripts: from a registry's package of that name that is a program's
 * ordinary work, but from an index, registry or address the line names, it is code the line chose.
 */
function installs(indexes: readonly string[]): ProgramReader {
  return (command, args) => {
    const at = args.findIndex((word) => !word.value.startsWith("-"));
    if (at === -1 || !INSTALLS.has(args[at]!.value)) return;
    const rest = args.slice(at + 1);
    const chosen = rest.some(({ value }) => indexes.some((option) => value === option || value.startsWith(`${option}=`)) || NAMED_BY_SOURCE.test(value));
    if (chosen) command.codeExecution = true;
  };
}

const PIP = installs(PIP_INDEXES);
const NPM = installs(NPM_REGISTRIES);

/** The reader of a package manager's install, for the programs that have one. */
export const installer = (program: string): ProgramReader | undefined =>
  /^pip[0-9.]*$/.test(program) ? PIP : program === "npm" || program === "pnpm" || program === "yarn" || program === "bun" ? NPM : undefined;
