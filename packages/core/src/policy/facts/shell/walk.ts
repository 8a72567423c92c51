import { forEachChild } from "unbash";
import type { ArithmeticExpression, Command, ParsedScript, Redirection, SyntaxNode, Word } from "unbash";
import { isNumber, reevaluates } from "./arithmetic";

/** What a command reads on its standard input, when that may be code: a pipe, a here-document or here-string, a file. */
export type Stdin = { kind: "none" } | { kind: "pipe" } | { kind: "file" } | { kind: "text"; text: string; fixed: boolean };

/** A simple command as the walk meets it, with where it stands in the line. */
export type FoundCommand = {
  node: Command;
  stdin: Stdin;
  background: boolean;
  inPipeline: boolean;
  /** The innermost function whose body holds it. */
  caller: string | undefined;
  /** Bash evaluates a variable's value as arithmetic in one of its words (`$((x))`), which can run commands. */
  reevaluated: boolean;
  depth: number;
};

export type WalkSink = {
  command(found: FoundCommand): void;
  /** A compound command (`((x))`, `[[ $a -eq 1 ]]`) in which bash evaluates a variable's value as arithmetic. */
  arithmetic(kind: "((" | "[[", depth: number): void;
  /** Redirections of a compound command (`{ …; } > file`), which no simple command carries. */
  redirections(redirects: readonly Redirection[], depth: number): void;
  substitution(): void;
  error(message: string): void;
  /** A part nested deeper than the walk goes: it is not read, and the line is refused. */
  tooDeep(depth: number): void;
};

type Place = { depth: number; background: boolean; stdin: "pipe" | undefined; inPipeline: boolean; caller: string | undefined };

const NESTING: ReadonlySet<SyntaxNode["type"]> = new Set(["Subshell", "BraceGroup", "If", "While", "For", "ArithmeticFor", "Select", "Case", "Function", "Coproc"]);
const SUBSTITUTIONS: ReadonlySet<SyntaxNode["type"]> = new Set(["CommandExpansion", "ProcessSubstitution", "ArithmeticCommandExpansion"]);
const COMPARISONS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** Walks every simple command of a parsed line, in order: lists, pipelines, compound commands, functions and every substitution. */
export function walkScript(script: ParsedScript, depth: number, sink: WalkSink, limits: { holdsNumber: (name: string) => boolean; maxDepth: number }): void {
  visit(script, { depth, background: false, stdin: undefined, inPipeline: false, caller: undefined }, { ...sink, ...limits });
}

type Walking = WalkSink & { holdsNumber: (name: string) => boolean; maxDepth: number };

function visit(node: SyntaxNode, place: Place, sink: Walking): void {
  if (place.depth > sink.maxDepth) return sink.tooDeep(place.depth);
  switch (node.type) {
    case "Script":
      for (const error of (node as ParsedScript).errors ?? []) sink.error(error.message);
      break;
    case "Statement":
      place = { ...place, background: place.background || node.background === true };
      break;
    case "Pipeline":
      node.commands.forEach((command, index) =>
        visit(command, { ...place, stdin: index > 0 ? "pipe" : place.stdin, inPipeline: place.inPipeline || node.commands.length > 1 }, sink),
      );
      return;
    case "Command":
      sink.command({
        node,
        stdin: stdinOf(node.redirects, place.stdin),
        background: place.background,
        inPipeline: place.inPipeline,
        caller: place.caller,
        reevaluated: reevaluates(node, sink.holdsNumber),
        depth: place.depth,
      });
      break;
    case "Redirected":
      sink.redirections(node.redirects, place.depth);
      break;
    case "ArithmeticCommand":
    case "ArithmeticFor":
      if (reevaluates(node, sink.holdsNumber)) sink.arithmetic("((", place.depth);
      break;
    case "TestCommand":
      if (testReevaluates(node.expression, sink.holdsNumber)) sink.arithmetic("[[", place.depth);
      break;
  }
  if (SUBSTITUTIONS.has(node.type)) {
    sink.substitution();
    if ((node as { script?: ParsedScript }).script === undefined) sink.error("a substitution could not be parsed");
    place = { depth: place.depth + 1, background: false, stdin: undefined, inPipeline: false, caller: place.caller };
  } else if (NESTING.has(node.type)) {
    place = { ...place, depth: place.depth + 1, stdin: undefined, ...(node.type === "Function" ? { caller: node.name.value } : {}) };
  } else if (node.type === "AndOr" || node.type === "CompoundList") {
    place = { ...place, stdin: undefined };
  }
  const inner = place;
  forEachChild(node, (child) => visit(child, inner, sink));
}

function stdinOf(redirects: readonly Redirection[], piped: "pipe" | undefined): Stdin {
  for (const redirect of [...redirects].reverse()) {
    if (redirect.descriptor !== undefined && !(redirect.descriptor.type === "FileDescriptor" && redirect.descriptor.value === 0)) continue;
    if (redirect.type === "HereDoc") {
      const fixed = redirect.delimiter?.quoted === true || (redirect.body.parts ?? []).every((part) => part.type === "Literal");
      return { kind: "text", text: redirect.body.text, fixed };
    }
    if (redirect.type === "HereString" && redirect.target) return { kind: "text", text: redirect.target.value, fixed: isFixedWord(redirect.target) };
    if (redirect.type === "Redirect" && (redirect.operator === "<" || redirect.operator === "<>")) return { kind: "file" };
  }
  return piped ? { kind: "pipe" } : { kind: "none" };
}

const isFixedWord = (word: Word) =>
  (word.parts ?? []).every((part) => part.type === "Literal" || part.type === "SingleQuoted" || part.type === "AnsiCQuoted" || (part.type === "DoubleQuoted" && part.parts.every((child) => child.type === "Literal")));

type TestNode = Extract<SyntaxNode, { type: "TestUnary" | "TestBinary" | "TestLogical" | "TestNot" | "TestGroup" }>;

/** `[[ $a -eq 1 ]]` evaluates both sides as arithmetic; `[[ -v 'a[$(…)]' ]]` evaluates the subscript. */
function testReevaluates(expression: TestNode | ArithmeticExpression, holdsNumber: (name: string) => boolean): boolean {
  const plain = (text: string) => isNumber(text) || holdsNumber(text.replace(/^\$\{?|\}$/g, ""));
  switch (expression.type) {
    case "TestBinary":
      return COMPARISONS.has(expression.operator) && (!plain(expression.left.value) || !plain(expression.right.value));
    case "TestUnary":
      return expression.operator === "-v" && expression.operand.value.includes("[");
    case "TestLogical":
      return expression.operands.some((operand) => testReevaluates(operand, holdsNumber));
    case "TestNot":
      return testReevaluates(expression.operand, holdsNumber);
    case "TestGroup":
      return testReevaluates(expression.expression, holdsNumber);
    default:
      return false;
  }
}
