import { badge, code, consoleHref, element } from "./dom";

/**
 * A group scope as an operator reads it: everyone's, a department's (linked to the departments page) or one agent's
 * (linked to it; "its own" on the page of `ownAgentId`).
 */
export function scopeNodes(scope: string, ownAgentId?: string) {
  if (scope === "system") return [badge("everyone")];
  if (ownAgentId !== undefined && scope === `agent:${ownAgentId}`) return [badge("its own")];
  const at = scope.indexOf(":");
  const kind = scope.slice(0, at);
  const name = scope.slice(at + 1);
  if (kind === "department")
    return [badge("department"), " ", element("a", { href: consoleHref("/departments") + "#department-" + encodeURIComponent(name), text: name })];
  return [badge("one agent"), " ", element("a", { href: consoleHref("/agents/" + encodeURIComponent(name)) }, [code(name)])];
}

/** A group scope in a few words, for choices and sentences. */
export function scopeText(scope: string) {
  if (scope === "system") return "everyone";
  const at = scope.indexOf(":");
  return `${scope.slice(0, at) === "department" ? "the department" : "the agent"} ${scope.slice(at + 1)}`;
}

/** Narrowest first: one agent's, then a department's, then everyone's. */
export const narrowestFirst = (a: { scope: string }, b: { scope: string }) => rank(a.scope) - rank(b.scope);
const rank = (scope: string) => (scope.startsWith("agent:") ? 0 : scope.startsWith("department:") ? 1 : 2);
