import { named, readOptions } from "./options";
import type { CommandInput, Follow, ProgramReader } from "./types";
import { plainWord } from "./word";
import type { ShellWord } from "./word";

/** How a program that runs another one reads its own arguments, up to the command it runs. */
export type WrapperSyntax = {
  valued?: readonly string[];
  /** Operands before the command: timeout's duration, chroot's directory, flock's lock file. */
  before?: number;
  /** With one of these it runs nothing (`command -v rm` only says where rm is). */
  lookups?: readonly string[];
  /** Options whose value is a shell line the program hands to `sh -c` (`flock -c`, `su -c`). */
  lineOptions?: readonly string[];
  /** Options whose value is split into the command's words (`env -S`). */
  splitOptions?: readonly string[];
  /** `NAME=value` operands before the command set its variables (`env`). */
  assignments?: boolean;
  /** Its operands, joined by spaces, are a shell line (`watch`), unless one of `unlessOptions` is given. */
  joinsLine?: boolean;
  unlessOptions?: readonly string[];
  /** With one of these, its operands joined are a shell line (`sudo -s`). */
  lineWith?: readonly string[];
  /** Its operands are not a command (su's user, script's log file): it runs only its line options. */
  noCommand?: boolean;
  /** The command ends at this operand (`parallel echo ::: a b`). */
  terminators?: readonly string[];
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The words joined as one shell line; bash fills in part of it when any of them is expanded. */
export const joined = (words: readonly ShellWord[]): ShellWord => ({
  ...plainWord(words.map((word) => word.value).join(" ")),
  expanded: words.some((word) => word.expanded),
});

/**
 * The commands a wrapper runs, read from its arguments. An option the syntax does not know may take the next word as
 * its value: both readings are kept, so `nice --adjustment 5 rm -rf /` runs `rm` whichever it is.
 */
export function wrapper(written: WrapperSyntax): ProgramReader {
  const syntax = { ...written, valued: [...(written.valued ?? []), ...(written.lineOptions ?? []), ...(written.splitOptions ?? [])] };
  return (_command, args, input) => {
    const follow: Required<Pick<Follow, "wrapped" | "lines">> = { wrapped: [], lines: [] };
    const readings = new Set<number>();
    const read = (from: number) => {
      const { options, operand, unknown } = syntax.noCommand ? everyOption(args, syntax) : readOptions(args, from, syntax);
      for (const option of named(options, syntax.lineOptions ?? [])) if (option.value) follow.lines.push(option.value);
      for (const option of named(options, syntax.splitOptions ?? []))
        if (option.value) follow.lines.push(joined([option.value, ...args.slice(operand)]));
      if (named(options, syntax.lookups ?? []).length || syntax.noCommand) return;
      const last = unknown.at(-1);
      if (last !== undefined && last + 1 === operand && operand < args.length) read(operand + 1);
      commandFrom(operand, named(options, syntax.lineWith ?? []).length > 0 || (syntax.joinsLine === true && !named(options, syntax.unlessOptions ?? []).length));
    };
    const commandFrom = (operand: number, asLine: boolean) => {
      let start = operand;
      const assignments = [...input.assignments];
      if (syntax.assignments)
        for (; start < args.length && ASSIGNMENT.test(args[start]!.value); start++) {
          const [name, ...value] = args[start]!.value.split("=");
          assignments.push({ name: name!, value: value.join("=") });
        }
      start += syntax.before ?? 0;
      if (syntax.before && syntax.lineOptions) {
        const after = readOptions(args, start, syntax);
        for (const option of named(after.options, syntax.lineOptions)) if (option.value) follow.lines.push(option.value);
        start = after.operand;
      }
      const end = terminatorAt(args, start, syntax.terminators);
      if (start >= end || readings.has(start)) return;
      readings.add(start);
      const words = args.slice(start, end);
      if (asLine) follow.lines.push(joined(words));
      else follow.wrapped.push(wrappedInput(words, assignments, input));
    };
    read(0);
    return follow;
  };
}

/** Every option of a program that takes them anywhere among its operands (GNU getopt's order), such as `su root -c …`. */
function everyOption(args: readonly ShellWord[], syntax: WrapperSyntax) {
  const options = [];
  for (let from = 0; from < args.length; ) {
    const read = readOptions(args, from, syntax);
    options.push(...read.options);
    from = read.operand + 1;
  }
  return { options, operand: args.length, unknown: [] };
}

export const wrappedInput = (words: readonly ShellWord[], assignments: CommandInput["assignments"], input: CommandInput): CommandInput => ({
  words,
  assignments,
  stdin: input.stdin,
  paths: [],
  reevaluated: false,
});

function terminatorAt(args: readonly ShellWord[], start: number, terminators: readonly string[] | undefined): number {
  if (!terminators) return args.length;
  const at = args.findIndex((word, index) => index >= start && terminators.includes(word.value));
  return at === -1 ? args.length : at;
}

const SUDO_VALUED = ["-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user"];
const XARGS_VALUED = ["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"];
const PARALLEL_VALUED = ["-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file", "-d", "--delimiter", "-I", "-E", "-n", "-N", "--colsep", "-C", "--results", "--tmpdir", "--workdir", "--wd"];

/** Programs that run the command their arguments name, each read as its manual page says. */
export const WRAPPERS: ReadonlyMap<string, WrapperSyntax> = new Map<string, WrapperSyntax>([
  ["env", { valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"], splitOptions: ["-S", "--split-string"], assignments: true }],
  ["command", { lookups: ["-v", "-V"] }],
  ["builtin", {}],
  ["exec", { valued: ["-a"] }],
  ["nice", { valued: ["-n", "--adjustment"] }],
  ["nohup", {}],
  ["setsid", {}],
  ["timeout", { valued: ["-s", "--signal", "-k", "--kill-after"], before: 1 }],
  ["time", { valued: ["-f", "--format", "-o", "--output"] }],
  ["stdbuf", { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] }],
  ["sudo", { valued: SUDO_VALUED, lookups: ["-l", "--list", "-v", "--validate", "-V", "--version", "-K", "--remove-timestamp", "-e", "--edit"], lineWith: ["-s", "--shell", "-i", "--login"] }],
  ["doas", { valued: ["-u", "-C"], lineWith: ["-s"] }],
  ["run0", { valued: ["-u", "--user", "-g", "--group", "-D", "--chdir", "--nice", "--setenv", "--property", "--description", "--slice", "--unit"] }],
  ["pkexec", { valued: ["--user"] }],
  ["busybox", {}],
  ["xargs", { valued: XARGS_VALUED }],
  ["parallel", { valued: PARALLEL_VALUED, terminators: [":::", "::::", ":::+", "::::+"] }],
  ["flock", { valued: ["-w", "--timeout", "-E", "--conflict-exit-code"], lineOptions: ["-c", "--command"], before: 1 }],
  ["watch", { valued: ["-n", "--interval", "-q", "--equexit"], joinsLine: true, unlessOptions: ["-x", "--exec"] }],
  ["chroot", { valued: ["--userspec", "--groups"], before: 1 }],
  ["unshare", { valued: ["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd"] }],
  ["nsenter", { valued: ["-t", "--target", "-S", "--setuid", "-G", "--setgid"] }],
  ["setpriv", {}],
  ["taskset", { before: 1, lookups: ["-p", "--pid"] }],
  ["ionice", { valued: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] }],
  ["chrt", { before: 1, lookups: ["-p", "--pid"] }],
  ["numactl", {}],
  ["strace", { valued: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X", "--output", "--trace"] }],
  ["ltrace", { valued: ["-o", "-e", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-l", "-n", "-x", "--output"] }],
  ["valgrind", {}],
  ["fakeroot", { valued: ["-l", "--lib", "--faked", "-s", "-i", "-b"] }],
  ["faketime", { before: 1 }],
  ["firejail", {}],
  ["proot", { valued: ["-r", "-b", "-w", "-q"] }],
  ["catchsegv", {}],
  ["rlwrap", {}],
  ["unbuffer", {}],
  ["torsocks", {}],
  ["proxychains", { valued: ["-f"] }],
  ["proxychains4", { valued: ["-f"] }],
  ["tsocks", {}],
  ["caffeinate", {}],
  ["dbus-run-session", {}],
  ["ssh-agent", {}],
  ["entr", {}],
  ["cross-env", { assignments: true }],
  ["dotenv", { valued: ["-e", "-v", "-c"] }],
  ["systemd-run", { valued: ["-u", "--unit", "-p", "--property", "--description", "--slice", "-H", "--host", "-M", "--machine", "--uid", "--gid", "-E", "--setenv", "--working-directory", "--nice"] }],
  ["script", { valued: ["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit"], lineOptions: ["-c", "--command"], noCommand: true }],
  ["su", { valued: ["-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"], lineOptions: ["-c", "--command", "--session-command"], noCommand: true }],
  ["runuser", { valued: ["-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"], lineOptions: ["-c", "--command", "--session-command"], noCommand: true }],
  ["sg", { before: 1, lineOptions: ["-c"], joinsLine: true }],
]);
