import type { ToolDefinition } from "../tool/schema";
import { commandArguments, pathArguments } from "./facts/arguments";
import type { ShortRule } from "./schema";

/** A Cedar string literal (the same escapes serve a `like` pattern, whose `*` stays a wildcard). */
const literal = (text: string) =>
  `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t").replace(/\0/g, "\\0")}"`;

const HEADS = { deny: "forbid", ask: '@effect("ask")\npermit', allow: "permit" } as const;

type Subject = { condition: string; matched: string };

const SAYS = { deny: "Refused", ask: "Waits for an operator's approval", allow: "Runs without an approval" } as const;

type Parameters = { properties?: Record<string, { type?: unknown }>; required?: unknown };

const requires = (definition: ToolDefinition, argument: string) => {
  const { required } = definition.function.parameters as Parameters;
  return Array.isArray(required) && required.includes(argument);
};

/** A command glob ending in ` *` matches the command alone too (`git push *` matches `git push`), as opencode and Claude Code read it. */
function commandCondition(match: string): string {
  const like = `context.command like ${literal(match)}`;
  if (!match.endsWith(" *") || match.trim() === "*") return like;
  return `(${like} || context.command like ${literal(match.slice(0, -2))})`;
}

/** `alsoMet`: the tool's other definitions the rule can meet (other layers'); an argument one of them may lack is tested for first. */
function subjectOf(rule: ShortRule, definition: ToolDefinition, alsoMet: readonly ToolDefinition[]): Subject | { problem: string } {
  const commands = commandArguments(definition);
  const paths = pathArguments(definition);
  const pattern = literal(rule.match);
  const name = definition.function.name;
  const argument = rule.argument ?? commands[0] ?? paths[0];
  if (argument === undefined)
    return { problem: `The tool "${name}" has no command or path argument, so the rule must name the argument to match ("argument").` };
  if (commands.includes(argument)) return { condition: commandCondition(rule.match), matched: "a command" };
  if (paths.includes(argument)) return { condition: `context.path like ${pattern}`, matched: "a path" };
  const property = (definition.function.parameters as Parameters).properties?.[argument];
  if (!property) return { problem: `The tool "${name}" has no argument "${argument}".` };
  if (property.type !== "string") return { problem: `The argument "${argument}" of "${name}" is not a string, so a glob cannot match it.` };
  const required = [definition, ...alsoMet].every((met) => requires(met, argument));
  const value = `context.input[${literal(argument)}]`;
  return { condition: required ? `${value} like ${pattern}` : `context.input has ${literal(argument)} && ${value} like ${pattern}`, matched: `the argument "${argument}"` };
}

/**
 * The Cedar policy a one-line rule stands for, or why it cannot be one: read from the definition it means, guarding
 * for an argument that one of the others it can meet (`alsoMet`, other layers') may lack.
 */
export function compileRule(rule: ShortRule, definition: ToolDefinition | undefined, alsoMet: readonly ToolDefinition[] = []): { cedar: string } | { problem: string } {
  if (!definition) return { problem: `There is no tool named "${rule.tool}".` };
  const subject = subjectOf(rule, definition, alsoMet);
  if ("problem" in subject) return subject;
  const annotations = [
    `@reason(${literal(rule.reason ?? `${SAYS[rule.effect]}: ${subject.matched} matches ${JSON.stringify(rule.match)}`)})`,
    ...(rule.recoverable ? ['@recoverable("true")'] : []),
  ];
  return {
    cedar: `${annotations.join("\n")}\n${HEADS[rule.effect]} (principal, action == Action::${literal(rule.tool)}, resource)\nwhen { ${subject.condition} };`,
  };
}
