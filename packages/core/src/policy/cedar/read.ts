import type { DetailedError, PolicyJson } from "@cedar-policy/cedar-wasm/nodejs";
import type { PolicyEffect, PolicyReads, PolicyTargets } from "../schema";
import { cedar } from "./wasm";
import type { CedarWasm } from "./wasm";

import { positionOf } from "./problem";
import type { PolicyProblem } from "./problem";
import { textBoundsProblem } from "./text-bounds";

export type { PolicyProblem } from "./problem";

/** What toolgate reads from one Cedar policy's text. */
/** `unlessAllowed`: an ask that gives way, for one simple command or path, to an allow policy matching it too (a default). */
export type ReadPolicy = { effect: PolicyEffect; reason?: string; recoverable: boolean; unlessAllowed?: true; targets: PolicyTargets; reads: PolicyReads };

export function problemsOf(text: string, errors: readonly DetailedError[]): PolicyProblem[] {
  const bytes = Buffer.from(text, "utf8");
  /** Cedar's offsets count UTF-8 bytes; an operator's editor (and a JS string) counts characters. */
  const characterAt = (byteOffset: number) => bytes.subarray(0, byteOffset).toString("utf8").length;
  return errors.map((error) => {
    const at = error.sourceLocations?.[0];
    const start = at === undefined ? undefined : characterAt(at.start);
    return {
      message: error.message.replace(/^for policy `[^`]*`, /, ""),
      ...(error.help ? { help: error.help } : {}),
      ...(at !== undefined && start !== undefined ? { start, end: characterAt(at.end), ...positionOf(text, start) } : {}),
    };
  });
}

const GROUP_ACTION_PREFIX = "group:";

const actionsNamed = (ids: readonly string[]) => ({
  tools: ids.filter((id) => !id.startsWith(GROUP_ACTION_PREFIX)),
  groups: ids.filter((id) => id.startsWith(GROUP_ACTION_PREFIX)).map((id) => id.slice(GROUP_ACTION_PREFIX.length)),
});

function targetsOf(action: PolicyJson["action"]): PolicyTargets {
  if (action.op === "All") return "all";
  const entities = "entities" in action ? action.entities : "entity" in action ? [action.entity] : [];
  return actionsNamed(entities.map((entity) => ("__entity" in entity ? entity.__entity.id : entity.id)));
}

/** The tools and groups a policy's conditions name as actions (`action == Action::"read_file"`); none when it does not parse. */
export function actionsInConditions(wasm: CedarWasm, text: string): { tools: string[]; groups: string[] } {
  const parsed = wasm.policyToJson(text);
  const ids = new Set<string>();
  const visit = (expr: unknown): void => {
    if (Array.isArray(expr)) return expr.forEach(visit);
    if (expr === null || typeof expr !== "object") return;
    const entity = (expr as { __entity?: { type?: unknown; id?: unknown } }).__entity;
    if (entity?.type === "Action" && typeof entity.id === "string") ids.add(entity.id);
    else Object.values(expr).forEach(visit);
  };
  if (parsed.type === "success") for (const clause of parsed.json.conditions) visit(clause.body);
  return actionsNamed([...ids]);
}

/**
 * How deep a policy's conditions may nest. Cedar evaluates an expression recursively on the process's stack: a chain
 * of about a hundred `||` overflowed it in a test worker (and 500 corrupted the engine's memory), so deeper ones are
 * refused when saved, never found failing on a call.
 */
export const MAX_EXPRESSION_DEPTH = 40;

/** The nesting of an expression in Cedar's JSON form: one level per operator, call, attribute access or value (`{ op: operands }`). */
function depthOf(expr: unknown): number {
  if (Array.isArray(expr)) return expr.reduce((deepest: number, item) => Math.max(deepest, depthOf(item)), 0);
  if (expr === null || typeof expr !== "object") return 0;
  const keys = Object.keys(expr);
  const deepest = Object.values(expr).reduce((max: number, value) => Math.max(max, depthOf(value)), 0);
  return deepest + (keys.length === 1 && keys[0] !== "arg" ? 1 : 0);
}

const isVar = (expr: unknown, name: string) => typeof expr === "object" && expr !== null && (expr as { Var?: unknown }).Var === name;

/**
 * What a policy's evaluation needs besides its text: the context attributes its conditions name ("all" when it uses
 * the context whole), and whether it needs the entities (the agent's attributes, the tool's group as an action group).
 * Cedar's time on a call grows with what it is given, so a call gives it only this.
 */
function readsOf(json: PolicyJson): PolicyReads {
  const attributes = new Set<string>();
  let wholeContext = false;
  const targets = targetsOf(json.action);
  let entities = json.principal.op !== "All" || json.resource.op !== "All" || (targets !== "all" && targets.groups.length > 0);
  const visit = (expr: unknown): void => {
    if (Array.isArray(expr)) return expr.forEach(visit);
    if (expr === null || typeof expr !== "object") return;
    const record = expr as Record<string, unknown>;
    const access = (record["."] ?? record.has) as { left?: unknown; attr?: unknown } | undefined;
    if (access && isVar(access.left, "context")) {
      for (const attr of [access.attr].flat()) if (typeof attr === "string") attributes.add(attr);
      return;
    }
    if (isVar(record, "context")) wholeContext = true;
    if (isVar(record, "principal") || isVar(record, "action") || isVar(record, "resource")) entities = true;
    Object.values(record).forEach(visit);
  };
  for (const clause of json.conditions) visit(clause.body);
  return { context: wholeContext ? "all" : [...attributes].sort(), entities };
}

/** Reads exactly one static Cedar policy; its problems when it does not parse or is not exactly one policy. */
export async function readPolicy(text: string): Promise<{ ok: true; read: ReadPolicy } | { ok: false; problems: PolicyProblem[] }> {
  const outOfBounds = textBoundsProblem(text);
  if (outOfBounds) return { ok: false, problems: [outOfBounds] };
  const wasm = await cedar();
  const parts = wasm.policySetTextToParts(text);
  if (parts.type === "failure") return { ok: false, problems: problemsOf(text, parts.errors) };
  if (parts.policy_templates.length) return { ok: false, problems: [{ message: "A policy may not be a template (no ?principal or ?resource slots)." }] };
  if (parts.policies.length !== 1) return { ok: false, problems: [{ message: `Give exactly one Cedar policy; the text holds ${parts.policies.length}.` }] };
  const parsed = wasm.policyToJson(text);
  if (parsed.type === "failure") return { ok: false, problems: problemsOf(text, parsed.errors) };
  const { json } = parsed;
  const depth = Math.max(0, ...json.conditions.map((clause) => depthOf(clause.body)));
  if (depth > MAX_EXPRESSION_DEPTH)
    return {
      ok: false,
      problems: [
        {
          message: `The policy's conditions nest ${depth} levels deep, and toolgate evaluates at most ${MAX_EXPRESSION_DEPTH}: a long chain of || or && nests one level per term, so group it in parentheses, e.g. (a || b || c) || (d || e || f).`,
        },
      ],
    };
  const annotations = json.annotations ?? {};
  const declared = annotations.effect;
  if (declared !== undefined && (json.effect !== "permit" || declared !== "ask"))
    return { ok: false, problems: [{ message: '@effect may only be "ask", on a permit policy (a forbid denies; a plain permit allows).' }] };
  if (annotations.unlessAllowed !== undefined && (declared !== "ask" || annotations.unlessAllowed !== "true"))
    return { ok: false, problems: [{ message: '@unlessAllowed may only be "true", on an @effect("ask") permit policy: it makes the ask give way to an allow policy that matches too.' }] };
  return {
    ok: true,
    read: {
      effect: json.effect === "forbid" ? "deny" : declared === "ask" ? "ask" : "allow",
      ...(annotations.reason ? { reason: annotations.reason } : {}),
      recoverable: annotations.recoverable === "true",
      ...(annotations.unlessAllowed === "true" ? { unlessAllowed: true as const } : {}),
      targets: targetsOf(json.action),
      reads: readsOf(json),
    },
  };
}
