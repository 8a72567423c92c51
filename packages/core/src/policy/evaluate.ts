import type { Context } from "@cedar-policy/cedar-wasm/nodejs";
import type { ToolDefinition } from "../tool/schema";
import type { Applicable } from "./applicable";
import { cedarInput, wellFormed } from "./cedar/values";
import { cedar } from "./cedar/wasm";
import { questioner } from "./cedar/question";
import type { Verdict } from "./cedar/question";
import type { Principal } from "./principal";
import type { CallFacts, CommandFact, PathFact } from "./facts/index";
import { policyUnavailable, unreadableCommand } from "./refusals";
import type { StoredPolicy } from "./schema";

export type { Verdict } from "./cedar/question";

/** The decision a call record carries: the verdict, the revision of the policy set, and what log-only policies would have made it. */
export type PolicyDecision = Verdict & { revision: number; logOnly?: Verdict };

export type CallToDecide = {
  principal: Principal;
  definition: ToolDefinition;
  group: string;
  args: Record<string, unknown>;
  root: string | null;
  revision: number;
  applicable: Applicable;
  /** Attributes of the use itself beside the call's facts: a resource read's `uri`, a prompt get's `prompt`. */
  context?: Record<string, string>;
};

export type Decided = { decision: PolicyDecision; facts: CallFacts | undefined };

let factsModule: Promise<typeof import("./facts/index")> | undefined;

const RANK: Record<Verdict["effect"], number> = { allow: 0, none: 1, ask: 2, deny: 3 };

/** One part of a call the policies are asked about: a simple command of its command line, with one of its paths. */
type Question = { command: CommandFact | undefined; path: PathFact | undefined };

/**
 * The call's parts: each simple command with each path it names (or the call's first path argument, its `cwd`), then
 * each path argument with the first command; at least one. Each question carries every other fact of the call.
 */
function questionsOf(facts: CallFacts): Question[] {
  const questions: Question[] = [];
  for (const command of facts.commands) {
    if (!command.paths.length) questions.push({ command, path: facts.paths[0] });
    for (const path of command.paths) questions.push({ command, path });
  }
  for (const path of facts.paths) questions.push({ command: facts.commands[0], path });
  return questions.length ? questions : [{ command: undefined, path: undefined }];
}

const COMMAND_FACTS = ["command", "program", "flags", "codeExecution", "dynamic"];
const PATH_FACTS = ["path", "outsideWorkspace"];

/** Two questions that differ only in facts no policy reads get one answer: Cedar is asked once per distinct part. */
function keyer(reads: ReadonlySet<string> | "all"): (question: Question) => string {
  const readsCommand = reads === "all" || COMMAND_FACTS.some((fact) => reads.has(fact));
  const readsPath = reads === "all" || PATH_FACTS.some((fact) => reads.has(fact));
  return ({ command, path }) => {
    const commandKey = readsCommand && command ? `${command.command}\u0000${command.program}\u0000${command.codeExecution}\u0000${command.dynamic}` : "";
    const pathKey = readsPath && path ? `${path.path}\u0000${path.outsideWorkspace}` : "";
    return `${commandKey}\u0001${pathKey}`;
  };
}

function contextOf(question: Question, facts: CallFacts, input: Context["input"]): Context {
  const { command, path } = question;
  return {
    input,
    path: wellFormed(path?.path ?? ""),
    outsideWorkspace: path?.outsideWorkspace ?? false,
    command: wellFormed(command?.command ?? ""),
    program: wellFormed(command?.program ?? ""),
    flags: (command?.flags ?? []).map(wellFormed),
    codeExecution: command?.codeExecution ?? false,
    dynamic: command?.dynamic ?? false,
    commandSubstitution: facts.commandSubstitution,
    forkBomb: facts.forkBomb,
    inputBytes: facts.inputBytes,
    largestStringBytes: facts.largestStringBytes,
  };
}

/** The strictest of the questions' verdicts (deny, then ask, then none, then allow: a call is allowed only if every part is). */
function strictest(verdicts: readonly Verdict[]): Verdict {
  const effect = verdicts.reduce<Verdict["effect"]>((worst, verdict) => (RANK[verdict.effect] > RANK[worst] ? verdict.effect : worst), "allow");
  const policies = [...new Set(verdicts.filter((verdict) => verdict.effect === effect).flatMap((verdict) => verdict.policies))];
  return { effect, policies };
}

const enforcedAndLogged = new WeakMap<Applicable, StoredPolicy[]>();

/** The enforced and log-only policies together (what the call would be with log-only ones enforced), one array per set. */
function withLogOnly(applicable: Applicable): StoredPolicy[] {
  let all = enforcedAndLogged.get(applicable);
  if (!all) enforcedAndLogged.set(applicable, (all = [...applicable.enforce, ...applicable.logOnly]));
  return all;
}

/** How long Cedar may be asked about one call before the process serves its other requests: a long line never holds it. */
const SLICE_MS = 4;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The call's parts as the policies are asked about them: its questions, its facts, its arguments as Cedar values. */
type Parts = { questions: readonly Question[]; facts: CallFacts; input: Context["input"]; own: Context };

async function verdict(call: CallToDecide, policies: readonly StoredPolicy[], { questions, facts, input, own }: Parts): Promise<Verdict> {
  if (!policies.length) return { effect: "none", policies: [] };
  const { ask, reads } = questioner(await cedar(), { principal: call.principal, tool: call.definition.function.name, group: call.group }, policies);
  const keyOf = keyer(reads);
  const answers = new Map<string, Verdict>();
  let slice = performance.now();
  for (const question of questions) {
    const key = keyOf(question);
    if (answers.has(key)) continue;
    if (performance.now() - slice > SLICE_MS) {
      await nextTurn();
      slice = performance.now();
    }
    answers.set(key, ask({ ...contextOf(question, facts, input), ...own }));
  }
  return strictest([...answers.values()]);
}

/**
 * The policies' decision about one call whose arguments are valid. Only the policies that apply are given to Cedar,
 * and none is asked when none applies. A policy set that cannot be evaluated refuses the call (503), never runs it unchecked.
 */
export async function decideCall(call: CallToDecide): Promise<Decided> {
  const { enforce, logOnly } = call.applicable;
  const none: PolicyDecision = { effect: "none", policies: [], revision: call.revision };
  if (!enforce.length && !logOnly.length) return { decision: none, facts: undefined };
  const tool = call.definition.function.name;
  // The facts (and the shell parser they use) load with the first call a policy is about, not at a function's start.
  const { callFacts } = await (factsModule ??= import("./facts/index"));
  const facts = callFacts(call.definition, call.args, call.root);
  if ("problem" in facts) {
    // Only log-only policies apply: they never change a decision, so the call goes on, recorded as what they would have done.
    if (!enforce.length) return { decision: { ...none, logOnly: { effect: "deny", policies: logOnly.map((policy) => policy.id) } }, facts: undefined };
    throw unreadableCommand(tool, facts.argument, facts.problem, facts.code);
  }
  const own = Object.fromEntries(Object.entries(call.context ?? {}).map(([name, value]) => [name, wellFormed(value)]));
  const parts: Parts = { questions: questionsOf(facts), facts, input: cedarInput(call.definition.function.parameters, call.args), own };
  try {
    const enforced = await verdict(call, enforce, parts);
    const decision: PolicyDecision = { ...enforced, revision: call.revision };
    if (logOnly.length) decision.logOnly = await verdict(call, withLogOnly(call.applicable), parts);
    return { decision, facts };
  } catch (error) {
    throw policyUnavailable(tool, error instanceof Error ? error.message : String(error));
  }
}
