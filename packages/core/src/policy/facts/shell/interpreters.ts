import { posix } from "node:path";
import { abbreviates, readOptions } from "./options";
import type { OptionSyntax } from "./options";
import type { CommandInput, LineSoFar, ProgramReader } from "./types";
import type { ShellWord } from "./word";

/** A file named on the line as the code to run is code written on the line when the line wrote it, or when bash fills it in. */
export function runsWrittenFile(word: ShellWord | undefined, line: LineSoFar): boolean {
  if (word === undefined) return false;
  return word.expanded || word.value === "/dev/stdin" || word.value === "-" || line.written.has(writtenKey(word.value));
}

/** How a written path and a path run later are compared: `./a.sh` and `a.sh` are one file. */
export const writtenKey = (path: string) => posix.normalize(path);

/** Whether a program that reads code from its standard input when given no script is given some. */
const readsCodeFromInput = (input: CommandInput) => input.stdin.kind !== "none";

type Interpreter = OptionSyntax & {
  /** Options whose value is the code to run (`-e`, `-c`, `--eval`). */
  inline: readonly string[];
  /** Options whose value is code when it is a `data:` URL (`node --import data:…`). */
  dataUrls?: readonly string[];
  /** Options after which the next operand is not a script (`python -m module`). */
  module?: readonly string[];
};

/** An interpreter runs code written on the line: inline (`-e`), from its input (`… | python`), or from a file the line wrote. */
function interpreter(syntax: Interpreter): ProgramReader {
  return (command, args, input, line) => {
    const { options, operand } = readOptions(args, 0, { valued: [...(syntax.valued ?? []), ...syntax.inline] });
    const inline = options.filter((option) => syntax.inline.includes(option.name)).flatMap((option) => (option.value ? [option.value] : []));
    const data = options.some((option) => syntax.dataUrls?.includes(option.name) && option.value?.value.startsWith("data:"));
    if (inline.length || data) command.codeExecution = true;
    else if (options.some((option) => syntax.module?.includes(option.name))) return undefined;
    else if (operand >= args.length) command.codeExecution ||= readsCodeFromInput(input);
    else command.codeExecution ||= runsWrittenFile(args[operand], line);
    return { code: inline };
  };
}

const SHELL_VALUED = ["-o", "-O", "--rcfile", "--init-file"];

/** A shell runs `-c`'s line (split and checked too), its input when given no script, or a script the line wrote. */
export const shell: ProgramReader = (command, args, input, line) => {
  let i = 0;
  let inline = false;
  let fromInput = false;
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === "--" || word === "-") {
      i += 1;
      break;
    }
    if (!/^[-+]/.test(word)) break;
    if (SHELL_VALUED.includes(word) || word === "+o" || word === "+O") i += 1;
    else if (word === "--command" || word === "-C" || word === "--init-command") {
      inline = true;
      i += 1;
      break;
    } else if (word.startsWith("--command=") || word.startsWith("--init-command=")) {
      command.codeExecution = true;
      return { lines: [{ ...args[i]!, value: word.slice(word.indexOf("=") + 1) }] };
    } else if (!word.startsWith("--")) {
      if (word.slice(1).includes("c")) inline = true;
      if (word.slice(1).includes("s")) fromInput = true;
    }
  }
  if (inline) {
    command.codeExecution = true;
    const code = args[i];
    return code ? { lines: [code] } : undefined;
  }
  if (i >= args.length || fromInput) {
    if (!readsCodeFromInput(input)) return undefined;
    command.codeExecution = true;
    return input.stdin.kind === "text" ? { lines: [{ value: input.stdin.text, expanded: !input.stdin.fixed, braces: false, glob: false }] } : undefined;
  }
  command.codeExecution ||= runsWrittenFile(args[i], line);
  return undefined;
};

export const SHELLS = ["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "ash", "yash", "posh", "rbash", "pdksh", "oksh", "loksh", "fish", "csh", "tcsh"];

const PYTHON: Interpreter = { inline: ["-c"], valued: ["-W", "-X", "-Q", "-m"], module: ["-m"] };
const NODE: Interpreter = {
  inline: ["-e", "--eval", "-p", "--print"],
  valued: ["-r", "--require", "--import", "--loader", "--experimental-loader", "--input-type", "-C", "--conditions", "--env-file", "--title"],
  dataUrls: ["-r", "--require", "--import", "--loader", "--experimental-loader"],
};

/** Programs that run code given inline or on their input, named as their packages install them. */
export const INTERPRETERS: ReadonlyArray<[RegExp, ProgramReader]> = [
  [/^(python|pypy)[0-9.]*$/, interpreter(PYTHON)],
  [/^(node|nodejs)[0-9.]*$/, interpreter(NODE)],
  [/^perl[0-9.]*$/, interpreter({ inline: ["-e", "-E"], valued: ["-I", "-M", "-m", "-x", "-0", "-l", "-C", "-i"] })],
  [/^(ruby|jruby)[0-9.]*$/, interpreter({ inline: ["-e"], valued: ["-r", "-I", "-C", "-E", "-x"] })],
  [/^php[0-9.]*$/, interpreter({ inline: ["-r", "-R", "-B", "-E"], valued: ["-f", "-c", "-d", "-z", "-t", "-F"] })],
  [/^(lua|luajit)[0-9.]*$/, interpreter({ inline: ["-e"], valued: ["-l"] })],
  [/^(rscript|r)$/, interpreter({ inline: ["-e", "--expr"] })],
  [/^(osascript|expect)$/, interpreter({ inline: ["-e", "-c"] })],
  [/^(tclsh|wish)[0-9.]*$/, interpreter({ inline: [] })],
  [/^bun$/, interpreter({ inline: ["-e", "--eval", "-p", "--print"] })],
];

/** Options whose value a program runs as a command: `man --html=…`, `sort --compress-program=…`, `rg --pre …`. */
type RunsOption = { long?: ReadonlyArray<readonly [string, number]>; short?: string; words?: readonly string[]; prefixes?: readonly string[] };

function runsOption(spec: RunsOption): ProgramReader {
  return (command, args) => {
    for (const { value } of args) {
      if (value === "--") break;
      const long = value.startsWith("--") && spec.long?.some(([name, shortest]) => abbreviates(value, name, shortest));
      const short = /^-[^-]/.test(value) && [...(spec.short ?? "")].some((letter) => value.slice(1).includes(letter));
      const word = spec.words?.includes(value.toLowerCase()) || spec.prefixes?.some((prefix) => value.startsWith(prefix));
      if (long || short || word) command.codeExecution = true;
    }
  };
}

/** ssh's `-o ProxyCommand=…` and the like run a local command. */
const SSH_COMMAND_KEYS = /^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match)\b/i;

const sshOptions: ProgramReader = (command, args) => {
  args.forEach(({ value }, i) => {
    const option = value.startsWith("-o") ? (value.length > 2 ? value.slice(2) : args[i + 1]?.value ?? "") : undefined;
    if (option !== undefined && SSH_COMMAND_KEYS.test(option.trim())) command.codeExecution = true;
    if ((value === "-S" || value.startsWith("-S")) && command.program !== "ssh") command.codeExecution = true;
  });
};

export const RUNS_OPTIONS: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ["man", runsOption({ long: [["--html", 4], ["--pager", 4]], short: "HP" })],
  ["sort", runsOption({ long: [["--compress-program", 5]] })],
  ["tar", runsOption({ long: [["--to-command", 6], ["--use-compress-program", 7], ["--checkpoint-action", 14], ["--info-script", 6], ["--new-volume-script", 7], ["--rsh-command", 7], ["--rmt-command", 7]], short: "IF" })],
  ["rsync", runsOption({ long: [["--rsh", 5], ["--rsync-path", 5]], short: "e" })],
  ["zip", runsOption({ long: [["--unzip-command", 4]], words: ["-tt"] })],
  ["rg", runsOption({ long: [["--pre", 5]] })],
  ["hash", runsOption({ short: "p" })],
  ["go", runsOption({ words: ["-exec", "-toolexec", "--exec", "--toolexec"], prefixes: ["-exec=", "-toolexec=", "--exec=", "--toolexec="] })],
  ["make", runsOption({ long: [["--eval", 5]], prefixes: ["SHELL=", ".SHELLFLAGS="] })],
  ["vim", runsOption({ words: ["-c", "--cmd", "-s"], prefixes: ["+"] })],
  ["vi", runsOption({ words: ["-c", "--cmd", "-s"], prefixes: ["+"] })],
  ["nvim", runsOption({ words: ["-c", "--cmd", "-s", "-l"], prefixes: ["+"] })],
  ["ex", runsOption({ words: ["-c", "--cmd", "-s"], prefixes: ["+"] })],
  ["emacs", runsOption({ words: ["-l", "-f", "--eval", "--load", "--funcall", "--execute", "--batch", "--script"], prefixes: ["--eval=", "--load=", "--funcall=", "--execute="] })],
  ["gdb", runsOption({ words: ["-ex", "-iex", "-x", "-ix", "--eval-command", "--init-eval-command", "--command", "--init-command", "-batch", "--batch"] })],
  ["pwsh", runsOption({ words: ["-c", "-command", "-encodedcommand", "-ec", "-e", "-f", "-file"] })],
  ["powershell", runsOption({ words: ["-c", "-command", "-encodedcommand", "-ec", "-e", "-f", "-file"] })],
  ["ssh", sshOptions],
  ["scp", sshOptions],
  ["sftp", sshOptions],
]);

/**
 * Programs that run commands they are given later, a terminal's keystrokes, the shell's history (`fc`) or a shared
 * object as a builtin (`enable -f`): whatever follows is code.
 */
export const ALWAYS_CODE = new Set(["at", "batch", "crontab", "tmux", "screen", "fc", "enable"]);
