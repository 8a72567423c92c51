import type { AnalysedCommand, Follow, PathWord, ProgramReader } from "./types";
import { wrappedInput } from "./wrappers";
import type { ShellWord } from "./word";

const RUNS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const WRITES = new Set(["-fprint", "-fprint0", "-fls"]);
const GLOBAL = new Set(["-H", "-L", "-P"]);

const isExpression = (word: string) => (word.startsWith("-") && word.length > 1) || word === "(" || word === "!" || word === ",";

const pathWord = (word: ShellWord): PathWord => ({ value: word.value, known: !word.expanded });

/**
 * find runs the commands of `-exec`, `-execdir`, `-ok` and `-okdir` once per file (`{}` standing for it: a program
 * named `{}` is whichever file was found), deletes what it finds with `-delete` (as `rm -r` on its starting points
 * would), and writes the files `-fprint`, `-fprintf` and `-fls` name.
 */
export const find: ProgramReader = (command, args, input) => {
  let i = 0;
  while (i < args.length && (GLOBAL.has(args[i]!.value) || /^-O\d*$/.test(args[i]!.value) || args[i]!.value === "-D")) i += args[i]!.value === "-D" ? 2 : 1;
  const starts: ShellWord[] = [];
  for (; i < args.length && !isExpression(args[i]!.value); i++) starts.push(args[i]!);
  const follow: Required<Pick<Follow, "wrapped" | "also">> = { wrapped: [], also: [] };
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (RUNS.has(word)) {
      const end = args.findIndex((next, at) => at > i && (next.value === ";" || next.value === "+"));
      const words = args.slice(i + 1, end === -1 ? args.length : end).map((next, at) => (at === 0 && next.value.includes("{}") ? { ...next, expanded: true } : next));
      if (words.length) follow.wrapped.push(wrappedInput(words, input.assignments, input));
      i = end === -1 ? args.length : end;
    } else if (word === "-delete") follow.also.push(deletion(starts));
    else if (WRITES.has(word) || word === "-fprintf") {
      const file = args[i + 1];
      if (file) command.paths.push(pathWord(file));
      i += word === "-fprintf" ? 2 : 1;
    }
  }
  return follow;
};

/** `find … -delete` as the `rm` it amounts to, so that rules about rm apply to it. */
function deletion(starts: readonly ShellWord[]): AnalysedCommand {
  const paths = starts.length ? starts : [{ value: ".", expanded: false, braces: false, glob: false }];
  return {
    text: ["rm", "-r", ...paths.map((word) => word.value)].join(" "),
    program: "rm",
    flags: ["-r"],
    codeExecution: false,
    dynamic: paths.some((word) => word.expanded),
    paths: paths.map(pathWord),
  };
}

const FD_RUNS = new Set(["-x", "--exec", "-X", "--exec-batch"]);

/** fd runs the command after `-x`/`--exec` (or `-X`/`--exec-batch`) for what it finds, up to a `;`. */
export const fd: ProgramReader = (_command, args, input) => {
  const at = args.findIndex(({ value }) => FD_RUNS.has(value.split("=", 1)[0]!));
  if (at === -1) return undefined;
  const option = args[at]!.value;
  const attached = option.includes("=") ? [{ ...args[at]!, value: option.slice(option.indexOf("=") + 1) }] : [];
  const end = args.findIndex((word, index) => index > at && word.value === ";");
  const words = [...attached, ...args.slice(at + 1, end === -1 ? args.length : end)];
  return words.length ? { wrapped: [wrappedInput(words, input.assignments, input)] } : undefined;
};
