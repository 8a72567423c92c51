import { forEachChild, parse, type Assignment, type CommandArgument, type SyntaxNode, type Word } from "unbash";

export type CommandLine = { commands: string[]; substitution: boolean };

const SUBSTITUTIONS: ReadonlySet<SyntaxNode["type"]> = new Set([
  "CommandExpansion",
  "ProcessSubstitution",
  "ArithmeticCommandExpansion",
]);

/**
 * The simple commands of a shell command line, wherever they appear: in lists and pipelines, compound
 * commands, function bodies and every substitution. Words are read as the shell would after quote removal,
 * without expanding variables, globs or braces. A line the parser cannot read entirely is refused.
 */
export function splitCommandLine(line: string): CommandLine | { problem: string } {
  const commands: string[] = [];
  const errors = new Set<string>();
  let substitution = false;
  const pending: SyntaxNode[] = [parse(line)];
  const children: SyntaxNode[] = [];
  const collect = (child: SyntaxNode) => void children.push(child);
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === "Script") for (const error of node.errors ?? []) errors.add(error.message);
    if (SUBSTITUTIONS.has(node.type)) {
      substitution = true;
      if ("script" in node && node.script === undefined) errors.add("a substitution could not be parsed");
    }
    if (node.type === "Command" && node.name) commands.push(simpleCommand(node.name, node.args));
    forEachChild(node, collect);
    while (children.length > 0) pending.push(children.pop()!);
  }
  if (errors.size > 0) return { problem: unreadable([...errors]) };
  return { commands, substitution };
}

function simpleCommand(name: Word, args: readonly CommandArgument[]): string {
  const words = [name.value];
  for (const argument of args) words.push(argument.type === "Word" ? argument.value : declaration(argument));
  return words.join(" ");
}

/** An argument of `export`, `declare`, `local` and the like, which the parser reads as an assignment. */
function declaration(assignment: Assignment): string {
  const index = assignment.index ? `[${assignment.index.value}]` : "";
  const operator = assignment.append ? "+=" : "=";
  const value =
    assignment.value.type === "Word"
      ? assignment.value.value
      : `(${assignment.value.elements.map((element) => element.value).join(" ")})`;
  return `${assignment.name}${index}${operator}${value}`;
}

const unreadable = (messages: string[]) =>
  `The shell command line cannot be read: the parser reports ${messages.map((message) => `"${message}"`).join(", ")}. ` +
  "Close every quote, bracket and substitution, or send a simpler command.";
