import { abbreviates, flagsOf } from "./options";
import type { AnalysedCommand, Follow, ProgramReader } from "./types";
import { joined, wrappedInput } from "./wrappers";
import type { ShellWord } from "./word";

/** Configuration keys whose value git runs, loads as configuration, or lets run a transport (`protocol.ext.allow`). */
const RUNS_KEY =
  /^(core\.(sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|(difftool|mergetool|browser|man)\..+\.(cmd|path)|man\.viewer|merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential\.(.+\.)?helper|pager\..+|gpg\.(.+\.)?program|uploadpack\.packobjectshook|protocol\.(.+\.)?allow|remote\..+\.(uploadpack|receivepack|vcs)|alias\..+|include\.path|includeif\..+|init\.templatedir|web\.browser|sendemail\.(.+\.)?(sendmailcmd|tocmd|cccmd|smtpserver)|guitool\..+\.cmd|submodule\..+\.update)$/;

export const runsConfig = (key: string) => RUNS_KEY.test(key.toLowerCase());

const VALUED_GLOBALS = new Set(["--namespace", "--super-prefix", "--list-cmds", "--attr-source"]);
const PATH_GLOBALS = new Set(["-C", "--git-dir", "--work-tree"]);

type Subcommand = (command: AnalysedCommand, rest: readonly ShellWord[], input: Parameters<ProgramReader>[2]) => Follow | void;

const runsAny = (words: readonly ShellWord[], options: ReadonlyArray<readonly [string, number]>, short = "") =>
  words.some(
    ({ value }) =>
      (value.startsWith("--") && options.some(([name, shortest]) => abbreviates(value, name, shortest))) ||
      (short !== "" && /^-[^-]/.test(value) && [...short].some((letter) => value.slice(1).includes(letter))),
  );

const transports = (words: readonly ShellWord[]) => words.some(({ value }) => /^(ext|fd)::/.test(value));

const markIf = (command: AnalysedCommand, runs: boolean) => {
  if (runs) command.codeExecution = true;
};

const PACK_PROGRAMS = [["--upload-pack", 5], ["--receive-pack", 5], ["--exec", 5]] as const;

/** git's subcommands that run a command they are given, or write where an option says. */
const SUBCOMMANDS: ReadonlyMap<string, Subcommand> = new Map<string, Subcommand>([
  ...["clone", "ls-remote"].map((name): [string, Subcommand] => [name, (command, rest) => markIf(command, runsAny(rest, PACK_PROGRAMS, "u") || transports(rest))]),
  ...["fetch", "pull", "push", "archive", "remote"].map((name): [string, Subcommand] => [name, (command, rest) => markIf(command, runsAny(rest, PACK_PROGRAMS) || transports(rest))]),
  ["rebase", (command, rest) => markIf(command, runsAny(rest, [["--exec", 5]], "x"))],
  ["difftool", (command, rest) => markIf(command, runsAny(rest, [["--extcmd", 5]], "x"))],
  ["grep", (command, rest) => markIf(command, runsAny(rest, [["--open-files-in-pager", 4]], "O"))],
  ["send-email", (command, rest) => markIf(command, runsAny(rest, [["--sendmail-cmd", 5], ["--to-cmd", 5], ["--cc-cmd", 5], ["--smtp-server", 7]]))],
  ["filter-branch", (command, rest) => markIf(command, rest.some(({ value }) => /^--[a-z-]*-filter$/.test(value)))],
  ["config", (command, rest) => markIf(command, setsRunningKey(rest))],
  ["bisect", (_command, rest, input) => (rest[0]?.value === "run" && rest.length > 1 ? { wrapped: [wrappedInput(rest.slice(1), input.assignments, input)] } : undefined)],
  ["submodule", (command, rest) => {
    markIf(command, runsAny(rest, PACK_PROGRAMS) || transports(rest));
    const at = rest.findIndex((word) => word.value === "foreach");
    if (at === -1) return undefined;
    const line = rest.slice(at + 1).filter((word, index, words) => !(word.value.startsWith("--") && words.slice(0, index).every((before) => before.value.startsWith("--"))));
    return line.length ? { lines: [joined(line)] } : undefined;
  }],
]);

/** `git config alias.x push`, `git config --global core.pager 'sh -c …'`: a key git runs, given a value. */
function setsRunningKey(rest: readonly ShellWord[]): boolean {
  const operands = rest.filter((word) => !word.value.startsWith("-") && word.value !== "set");
  return operands.length >= 2 && runsConfig(operands[0]!.value.split("=", 1)[0]!) ? true : rest.some((word) => word.value === "--edit" || word.value === "-e");
}

const pathWord = (word: ShellWord | undefined) => (word ? [{ value: word.value, known: !word.expanded }] : []);

/**
 * git as a rule reads it: its global options (`-C`, `-c`, `--git-dir`, `--no-pager`…) left out, so `git -C . push` is
 * `git push`; the directories they name are paths; a configuration that runs a command, an alias defined on the line,
 * `--exec-path=…` or a subcommand's option that runs one (`--upload-pack`, `rebase --exec`) is code execution.
 */
export const git: ProgramReader = (command, args, input) => {
  let i = 0;
  const keys: string[] = [];
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (!word.startsWith("-")) break;
    const [name, attached] = splitAttached(word);
    const value = attached ?? (PATH_GLOBALS.has(name) || VALUED_GLOBALS.has(name) || name === "-c" || name === "--config-env" ? args[++i]?.value : undefined);
    if (PATH_GLOBALS.has(name)) command.paths.push(...pathWord(attached === undefined ? args[i] : { ...args[i]!, value: attached }));
    if (name === "-c") keys.push((value ?? "").split("=", 1)[0]!);
    if (name === "--config-env") keys.push((value ?? "").split("=", 1)[0]!);
    if (name === "--exec-path" && attached !== undefined) command.codeExecution = true;
  }
  if (keys.some(runsConfig)) command.codeExecution = true;
  const subcommand = args[i];
  const rest = args.slice(i + 1);
  command.text = ["git", ...args.slice(i).map((word) => word.value)].join(" ");
  command.flags = flagsOf(rest);
  if (subcommand?.expanded) command.dynamic = true;
  for (const word of rest) if (word.value.startsWith("--output=")) command.paths.push({ value: word.value.slice("--output=".length), known: !word.expanded });
  return subcommand ? SUBCOMMANDS.get(subcommand.value)?.(command, rest, input) : undefined;
};

function splitAttached(word: string): [string, string | undefined] {
  if (!word.startsWith("--")) return [word, undefined];
  const equals = word.indexOf("=");
  return equals === -1 ? [word, undefined] : [word.slice(0, equals), word.slice(equals + 1)];
}
