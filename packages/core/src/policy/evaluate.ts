import type { Context } from "@cedar-policy/cedar-wasm/nodejs";
import type { ToolDefinition } from "../tool/schema";
import type { Applicable } from "./applicable";
import { cedarInput, wellFormed } from "./cedar/values";
import { cedar } from "./cedar/wasm";
import { questioner } from "./cedar/question";
import type { Verdict } from "./cedar/question";
import type { Principal } from "./principal";
import type { CallFacts } from "./facts/index";
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
};

export type Decided = { decision: PolicyDecision; facts: CallFacts | undefined };

let factsModule: Promise<typeof import("./facts/index")> | undefined;

const RANK: Record<Verdict["effect"], number> = { allow: 0, none: 1, ask: 2, deny: 3 };

/** One question per path and per simple command (at least one), each with every other fact: the strictest answer decides. */
function contexts(call: CallToDecide, facts: CallFacts | undefined): Context[] {
  const input = cedarInput(call.definition.function.parameters, call.args);
  const paths = facts?.paths ?? [];
  const commands = facts?.commands ?? [];
  const count = Math.max(1, paths.length, commands.length);
  return Array.from({ length: count }, (_, i) => {
    const path = paths[Math.min(i, paths.length - 1)];
    return {
      input,
      path: wellFormed(path?.path ?? ""),
      outsideWorkspace: path?.outsideWorkspace ?? false,
      command: wellFormed(commands[Math.min(i, commands.length - 1)] ?? ""),
      commandSubstitution: facts?.commandSubstitution ?? false,
      inputBytes: facts?.inputBytes ?? 0,
      largestStringBytes: facts?.largestStringBytes ?? 0,
    };
  });
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

async function verdict(call: CallToDecide, policies: readonly StoredPolicy[], questions: readonly Context[]): Promise<Verdict> {
  if (!policies.length) return { effect: "none", policies: [] };
  const asker = questioner(await cedar(), { principal: call.principal, tool: call.definition.function.name, group: call.group }, policies);
  return strictest(questions.map(asker));
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
    throw unreadableCommand(tool, facts.argument, facts.problem);
  }
  const questions = contexts(call, facts);
  try {
    const enforced = await verdict(call, enforce, questions);
    const decision: PolicyDecision = { ...enforced, revision: call.revision };
    if (logOnly.length) decision.logOnly = await verdict(call, withLogOnly(call.applicable), questions);
    return { decision, facts };
  } catch (error) {
    throw policyUnavailable(tool, error instanceof Error ? error.message : String(error));
  }
}
