import { runsItsValue } from "./environment";
import { runsWrittenFile } from "./interpreters";
import { joined } from "./wrappers";
import type { ProgramReader } from "./types";

/** `eval` runs its arguments, joined, as a shell line. */
const evaluate: ProgramReader = (command, args) => {
  command.codeExecution = true;
  return args.length ? { lines: [joined(args)] } : undefined;
};

/** `source` runs a file in this shell: code written on the line when the line wrote it, or bash fills in its name. */
const source: ProgramReader = (command, args, input, line) => {
  command.codeExecution ||= runsWrittenFile(args[0], line) || (args[0] === undefined && input.stdin.kind !== "none");
};

/** `trap 'rm -rf ~' EXIT` runs its first argument as a shell line when the signal comes. */
const trap: ProgramReader = (command, args) => {
  const action = args[0]?.value === "--" ? args[1] : args[0];
  if (!action || action.value === "" || action.value === "-" || action.value.startsWith("-")) return undefined;
  command.codeExecution = true;
  return { lines: [action] };
};

/** `alias ls='rm -rf ~'` makes a name run other code. */
const alias: ProgramReader = (command, args) => {
  if (args.some((word) => word.value.includes("="))) command.codeExecution = true;
};

/** `let` evaluates its arguments as arithmetic, which reads what variables hold as expressions. */
const arithmetic: ProgramReader = (command, args) => {
  if (args.length) command.dynamic = true;
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** `export GIT_SSH_COMMAND=…` and the like set a variable a program runs; a subscript in a name is evaluated (`a[$(…)]`). */
const declaration: ProgramReader = (command, args) => {
  for (const { value } of args) {
    if (value.startsWith("-")) continue;
    const name = NAME.exec(value)?.[0];
    if (name && runsItsValue(name)) command.codeExecution = true;
    if (subscriptRuns(value)) command.dynamic = true;
  }
};

/** A variable name with a subscript holding a substitution, which bash evaluates (`printf -v 'a[$(id)]'`, `read`, `unset`, `test -v`). */
const subscriptRuns = (value: string) => /\[[^\]]*[$`]/.test(value);

const subscripts: ProgramReader = (command, args) => {
  if (args.some((word) => subscriptRuns(word.value))) command.dynamic = true;
};

export const BUILTINS: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ["eval", evaluate],
  ["source", source],
  [".", source],
  ["trap", trap],
  ["alias", alias],
  ["let", arithmetic],
  ["export", declaration],
  ["declare", declaration],
  ["typeset", declaration],
  ["local", declaration],
  ["readonly", declaration],
  ["printf", subscripts],
  ["read", subscripts],
  ["unset", subscripts],
  ["test", subscripts],
  ["[", subscripts],
  ["wait", subscripts],
  ["mapfile", subscripts],
  ["readarray", subscripts],
]);
