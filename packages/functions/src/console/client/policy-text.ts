// How a Cedar policy reads on the page: its effect, mode and scope in words, and a stored policy as a PUT body again.
import { badge } from "./dom";
import type { CedarPolicy, PolicyInput, PolicyProblem } from "./types";

export type PolicyMode = CedarPolicy["mode"];
export type ScopeKind = "system" | "department" | "role" | "agent";

export const POLICY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

const EFFECT_KINDS = { deny: "danger", ask: "warn", allow: "ok" } as const;

export const effectBadge = (effect: CedarPolicy["effect"] | "none") => (effect === "none" ? badge("no policy") : badge(effect, EFFECT_KINDS[effect]));

export const modeText = (mode: PolicyMode) => (mode === "enforce" ? "enforced" : "log-only");

export const modeBadge = (mode: PolicyMode) => badge(modeText(mode), mode === "enforce" ? undefined : "warn");

export function scopeParts(scope: string): { kind: ScopeKind; name: string } {
  if (scope === "system") return { kind: "system", name: "" };
  const at = scope.indexOf(":");
  return { kind: scope.slice(0, at) as ScopeKind, name: scope.slice(at + 1) };
}

export const SCOPE_ORDER: ScopeKind[] = ["system", "department", "role", "agent"];

/** Where a problem is in the Cedar text, as an editor counts: "line 2, column 8". */
export const problemPlace = (problem: PolicyProblem) => (problem.line === undefined ? null : `line ${problem.line}, column ${problem.column ?? 1}`);

export const problemText = (problem: PolicyProblem) => {
  const place = problemPlace(problem);
  return (place ? `${place}: ` : "") + problem.message + (problem.help ? ` (${problem.help})` : "");
};

/** The body that PUT /policies/:id takes to store this policy again, in the given mode. */
export function inputOf(policy: CedarPolicy, mode: PolicyMode = policy.mode): PolicyInput {
  const fields = { scope: policy.scope, mode, ...(policy.description !== undefined ? { description: policy.description } : {}) };
  return policy.rule ? { ...fields, rule: policy.rule } : { ...fields, cedar: policy.cedar };
}
