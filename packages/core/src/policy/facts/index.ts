import type { ToolDefinition } from "../../tool/schema";
import { splitCommandLine } from "./command";
import { resolvePath } from "./path";
import { sizeFacts } from "./size";
import { namesOf } from "./arguments";

export { commandArguments, pathArguments } from "./arguments";

/** What argument policies see of one call, derived from its already validated arguments. */
export type CallFacts = {
  paths: Array<{ path: string; outsideWorkspace: boolean }>;
  commands: string[];
  commandSubstitution: boolean;
  inputBytes: number;
  largestStringBytes: number;
};

const argument = (args: Record<string, unknown>, name: string) => (Object.hasOwn(args, name) ? args[name] : undefined);

/** The call's facts, or why a command argument cannot be read (the call is then refused, never guessed at). */
export function callFacts(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  root: string | null,
): CallFacts | { problem: string; argument: string } {
  const names = namesOf(definition);
  const paths: CallFacts["paths"] = [];
  for (const name of names.paths) {
    const value = argument(args, name);
    if (typeof value === "string") paths.push(resolvePath(value, root));
    else if (Array.isArray(value))
      for (const element of value) if (typeof element === "string") paths.push(resolvePath(element, root));
  }
  const commands: string[] = [];
  let commandSubstitution = false;
  for (const name of names.commands) {
    const value = argument(args, name);
    if (typeof value !== "string") continue;
    const line = splitCommandLine(value);
    if ("problem" in line) return { problem: line.problem, argument: name };
    commands.push(...line.commands);
    commandSubstitution ||= line.substitution;
  }
  return { paths, commands, commandSubstitution, ...sizeFacts(args) };
}
