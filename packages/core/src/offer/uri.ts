const SCHEME = "toolgate://";
const GROUP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The URI an agent is shown for a group's resource (or template): `toolgate://<group>/<the server's own URI>`. Two
 * servers may offer the same URI (two file servers' `file:///README.md`): each stays the agent's to tell apart, and the
 * name does not change when another group comes or goes.
 */
export const agentUri = (groupId: string, upstream: string) => `${SCHEME}${groupId}/${upstream}`;

/** The group and the server's own URI an agent's URI names; undefined for a URI toolgate never shows. */
export function upstreamOf(uri: string): { groupId: string; upstream: string } | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const rest = uri.slice(SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  const groupId = rest.slice(0, slash);
  const upstream = rest.slice(slash + 1);
  return GROUP_ID.test(groupId) && upstream ? { groupId, upstream } : undefined;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What each RFC 6570 expression may expand to: a simple one stays within a path segment; reserved and fragment ones may hold '/'. */
function expressionPattern(expression: string): string {
  const operator = expression[0];
  if (operator === "+" || operator === "#") return `${operator === "#" ? "#" : ""}.*`;
  if (operator === "?" || operator === "&") return "(?:[?&][^#]*)?";
  if (operator === "/") return "(?:/[^?#]*)?";
  if (operator === ".") return "(?:\\.[^/?#]*)?";
  if (operator === ";") return "(?:;[^/?#]*)?";
  return "[^/?#]*";
}

const patterns = new Map<string, RegExp | null>();
const MAX_PATTERNS = 4096;

/** The template as a pattern of the URIs it expands to; null for a template that is not well-formed. */
function patternOf(template: string): RegExp | null {
  const known = patterns.get(template);
  if (known !== undefined) return known;
  let source = "";
  let at = 0;
  let pattern: RegExp | null = null;
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    source += escaped(template.slice(at, match.index)) + expressionPattern(match[1]!);
    at = match.index + match[0].length;
  }
  const tail = template.slice(at);
  if (!/[{}]/.test(tail)) pattern = new RegExp(`^${source}${escaped(tail)}$`, "s");
  if (patterns.size >= MAX_PATTERNS) patterns.clear();
  patterns.set(template, pattern);
  return pattern;
}

/** Whether a URI is one the template expands to (RFC 6570, levels 1-3, read loosely: the server checks the rest). */
export const expandsTo = (template: string, uri: string) => patternOf(template)?.test(uri) ?? false;
