import type { AuthorizationAnswer, Context, EntityJson } from "@cedar-policy/cedar-wasm/nodejs";
import type { ToolDefinition } from "../tool/schema";
import type { Applicable } from "./applicable";
import { cedarInput, wellFormed } from "./cedar/values";
import { cedar } from "./cedar/wasm";
import { callFacts } from "./facts/index";
import type { CallFacts } from "./facts/index";
import { policyUnavailable, unreadableCommand } from "./refusals";
import type { PolicyEffect, StoredPolicy } from "./schema";

/** What the policies decided about one call: "none" when none matched (the tool's own settings decide). */
export type Verdict = { effect: PolicyEffect | "none"; policies: string[] };

/** The decision a call record carries: the verdict, the revision of the policy set, and what log-only policies would have made it. */
export type PolicyDecision = Verdict & { revision: number; logOnly?: Verdict };

/** Who calls, as the policies' principal sees it. */
export type Principal = { agentId: string; roleId: string; roleName: string; department: string | null; level: number | null };

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

const RANK: Record<Verdict["effect"], number> = { allow: 0, none: 1, ask: 2, deny: 3 };

const MAX_PREPARSED = 512;
const preparsed = new Map<string, string>();
let nextSetId = 0;

/** The id of a preparsed Cedar set holding exactly these policies (ids and versions say which), parsed once. */
async function preparsedSet(policies: readonly StoredPolicy[]): Promise<string> {
  const key = policies.map((policy) => `${policy.id}@${policy.version}`).sort().join(",");
  const known = preparsed.get(key);
  if (known) return known;
  const wasm = await cedar();
  if (preparsed.size >= MAX_PREPARSED) {
    preparsed.clear();
    nextSetId = 0;
  }
  const id = `set${nextSetId++}`;
  const answer = wasm.preparsePolicySet(id, { staticPolicies: Object.fromEntries(policies.map((policy) => [policy.id, policy.cedar])) });
  if (answer.type === "failure") throw new Error(answer.errors.map((error) => error.message).join("; "));
  preparsed.set(key, id);
  return id;
}

function entitiesOf(principal: Principal, tool: string, group: string): EntityJson[] {
  const attrs: EntityJson["attrs"] = { role: principal.roleName, roleId: principal.roleId };
  if (principal.department !== null) attrs.department = principal.department;
  if (principal.level !== null) attrs.level = principal.level;
  return [
    { uid: { type: "Agent", id: principal.agentId }, attrs, parents: [] },
    { uid: { type: "Action", id: tool }, attrs: {}, parents: [{ type: "Action", id: `group:${group}` }] },
  ];
}

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

/** One answer of Cedar's as a verdict. A deny or ask policy whose evaluation failed counts as matched: never fail open. */
function verdictOf(answer: AuthorizationAnswer, byId: ReadonlyMap<string, StoredPolicy>): Verdict {
  if (answer.type === "failure") throw new Error(answer.errors.map((error) => error.message).join("; "));
  const { decision, diagnostics } = answer.response;
  const matched = [...diagnostics.reason, ...diagnostics.errors.map((error) => error.policyId)];
  const errored = new Set(diagnostics.errors.map((error) => error.policyId));
  const of = (effect: PolicyEffect) =>
    matched.filter((id) => byId.get(id)?.effect === effect && (effect !== "allow" || (decision === "allow" && !errored.has(id))));
  for (const effect of ["deny", "ask", "allow"] as const) {
    const policies = [...new Set(of(effect))];
    if (policies.length) return { effect, policies };
  }
  return { effect: "none", policies: [] };
}

/** The strictest of the questions' verdicts (deny, then ask, then none, then allow: a call is allowed only if every part is). */
function strictest(verdicts: readonly Verdict[]): Verdict {
  const effect = verdicts.reduce<Verdict["effect"]>((worst, verdict) => (RANK[verdict.effect] > RANK[worst] ? verdict.effect : worst), "allow");
  const policies = [...new Set(verdicts.filter((verdict) => verdict.effect === effect).flatMap((verdict) => verdict.policies))];
  return { effect, policies };
}

async function verdict(call: CallToDecide, policies: readonly StoredPolicy[], questions: readonly Context[]): Promise<Verdict> {
  if (!policies.length) return { effect: "none", policies: [] };
  const wasm = await cedar();
  const setId = await preparsedSet(policies);
  const byId = new Map(policies.map((policy) => [policy.id, policy]));
  const tool = call.definition.function.name;
  const entities = entitiesOf(call.principal, tool, call.group);
  const request = { principal: { type: "Agent", id: call.principal.agentId }, action: { type: "Action", id: tool }, resource: { type: "ToolGroup", id: call.group } };
  return strictest(questions.map((context) => verdictOf(wasm.statefulIsAuthorized({ ...request, context, entities, preparsedPolicySetId: setId }), byId)));
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
  const facts = callFacts(call.definition, call.args, call.root);
  if ("problem" in facts) throw unreadableCommand(tool, facts.argument, facts.problem);
  const questions = contexts(call, facts);
  try {
    const enforced = await verdict(call, enforce, questions);
    const decision: PolicyDecision = { ...enforced, revision: call.revision };
    if (logOnly.length) decision.logOnly = await verdict(call, [...enforce, ...logOnly], questions);
    return { decision, facts };
  } catch (error) {
    throw policyUnavailable(tool, error instanceof Error ? error.message : String(error));
  }
}
