import { createHash } from "node:crypto";
import type { AuthorizationAnswer, Context, EntityJson } from "@cedar-policy/cedar-wasm/nodejs";
import type { Principal } from "../principal";
import type { PolicyEffect, StoredPolicy } from "../schema";
import { wellFormed } from "./values";
import { cedarGeneration } from "./wasm";
import type { CedarWasm } from "./wasm";

/** What the policies decided about one call: "none" when none matched (the tool's own settings decide). */
export type Verdict = { effect: PolicyEffect | "none"; policies: string[] };

export type Subject = { principal: Principal; tool: string; group: string };

const MAX_PREPARSED = 512;
const preparsed = new Map<string, string>();
let nextSetId = 0;
/** The engine instance the preparsed sets are in: a new one (after a fault) holds none of them. */
let preparsedIn = 0;

const fingerprints = new WeakMap<StoredPolicy, string>();

/** A policy's id and text, hashed once: a policy deleted and made again, or a simulated draft, has its own. */
function fingerprintOf(policy: StoredPolicy): string {
  let fingerprint = fingerprints.get(policy);
  if (!fingerprint) fingerprints.set(policy, (fingerprint = createHash("sha256").update(policy.id).update("\u0000").update(policy.cedar).digest("base64url")));
  return fingerprint;
}

/** The id of a preparsed Cedar set holding exactly these policies (their ids and texts say which), parsed once. */
function preparsedSet(wasm: CedarWasm, policies: readonly StoredPolicy[], key: string): string {
  if (preparsedIn !== cedarGeneration()) {
    preparsed.clear();
    preparsedIn = cedarGeneration();
  }
  const known = preparsed.get(key);
  if (known) return known;
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
  const attrs: EntityJson["attrs"] = { role: wellFormed(principal.roleName), roleId: principal.roleId };
  if (principal.department !== null) attrs.department = wellFormed(principal.department);
  if (principal.level !== null) attrs.level = principal.level;
  return [
    { uid: { type: "Agent", id: principal.agentId }, attrs, parents: [] },
    { uid: { type: "Action", id: tool }, attrs: {}, parents: [{ type: "Action", id: `group:${group}` }] },
  ];
}

/** One answer of Cedar's as a verdict. A deny or ask policy whose evaluation failed counts as matched: never fail open. */
function verdictOf(answer: AuthorizationAnswer, byId: ReadonlyMap<string, StoredPolicy>): Verdict {
  if (answer.type === "failure") throw new Error(answer.errors.map((error) => error.message).join("; "));
  const { decision, diagnostics } = answer.response;
  const matched = [...diagnostics.reason, ...diagnostics.errors.map((error) => error.policyId)];
  const errored = new Set(diagnostics.errors.map((error) => error.policyId));
  const of = (effect: PolicyEffect) =>
    [...new Set(matched.filter((id) => byId.get(id)?.effect === effect && (effect !== "allow" || (decision === "allow" && !errored.has(id)))))];
  const denies = of("deny");
  if (denies.length) return { effect: "deny", policies: denies };
  const allows = of("allow");
  const asks = of("ask").filter((id) => !(allows.length && byId.get(id)?.unlessAllowed && !errored.has(id)));
  if (asks.length) return { effect: "ask", policies: asks };
  if (allows.length) return { effect: "allow", policies: allows };
  return { effect: "none", policies: [] };
}

/** What asking about a set of policies takes, worked out once per set (the sets that apply to a call are kept). */
type Asking = { key: string; byId: ReadonlyMap<string, StoredPolicy>; context: ReadonlySet<string> | "all"; entities: boolean };

const askings = new WeakMap<readonly StoredPolicy[], Asking>();

/** Their preparsed set's key, and what they read together: Cedar's time on a call grows with the context and entities it is given. */
function askingOf(policies: readonly StoredPolicy[]): Asking {
  let known = askings.get(policies);
  if (known) return known;
  const context = new Set<string>();
  let all = false;
  let entities = false;
  for (const { reads } of policies) {
    if (reads.context === "all") all = true;
    else for (const attribute of reads.context) context.add(attribute);
    if (reads.entities) entities = true;
  }
  const key = policies.map(fingerprintOf).sort().join(",");
  askings.set(policies, (known = { key, byId: new Map(policies.map((policy) => [policy.id, policy])), context: all ? "all" : context, entities }));
  return known;
}

const pick = (context: Context, attributes: ReadonlySet<string>): Context => {
  const picked: Context = {};
  for (const attribute of attributes) if (Object.hasOwn(context, attribute)) picked[attribute] = context[attribute]!;
  return picked;
};

/**
 * Asks Cedar about one call with these policies (preparsed once), one context at a time, given only what they read;
 * `reads` says which context attributes that is.
 */
export function questioner(wasm: CedarWasm, { principal, tool, group }: Subject, policies: readonly StoredPolicy[]): { ask: (context: Context) => Verdict; reads: ReadonlySet<string> | "all" } {
  const { key, byId, context: reads, entities } = askingOf(policies);
  const setId = preparsedSet(wasm, policies, key);
  const request = {
    principal: { type: "Agent", id: principal.agentId },
    action: { type: "Action", id: tool },
    resource: { type: "ToolGroup", id: group },
    entities: entities ? entitiesOf(principal, tool, group) : [],
    preparsedPolicySetId: setId,
  };
  return { ask: (context) => verdictOf(wasm.statefulIsAuthorized({ ...request, context: reads === "all" ? context : pick(context, reads) }), byId), reads };
}
