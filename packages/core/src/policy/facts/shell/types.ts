import type { Stdin } from "./walk";
import type { ShellWord } from "./word";

/** A word of a command line that names a file; `known` is false when bash fills part of it in (`$HOME/x`). */
export type PathWord = { value: string; known: boolean };

/** One simple command as the policies see it: its program however spelled, and what it would do. */
export type AnalysedCommand = {
  /** The program and its arguments, words unquoted and joined by spaces, the program by its name (`/bin/rm` is `rm`). */
  text: string;
  program: string;
  flags: string[];
  codeExecution: boolean;
  dynamic: boolean;
  paths: PathWord[];
};

/** A simple command to analyse: its words, the variables set for it, its input, the paths of its redirections. */
export type CommandInput = {
  words: readonly ShellWord[];
  assignments: ReadonlyArray<{ name: string; value: string }>;
  stdin: Stdin;
  paths: readonly PathWord[];
  reevaluated: boolean;
};

/**
 * What a program's reading adds: the commands it runs (wrapped), shell lines it hands to a shell, commands it stands
 * for, and words that are code rather than files (`node -e '…'`).
 */
export type Follow = { wrapped?: CommandInput[]; lines?: ShellWord[]; also?: AnalysedCommand[]; code?: ShellWord[] };

/** What the rest of the line says about this command's files: those written before it on the line. */
export type LineSoFar = { written: ReadonlySet<string> };

/** Reads one program's arguments: may mark the command (code execution, dynamic, its text) and say what else runs. */
export type ProgramReader = (command: AnalysedCommand, args: readonly ShellWord[], input: CommandInput, line: LineSoFar) => Follow | void;
