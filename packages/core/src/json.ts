/** How deep any JSON toolgate accepts may nest: request bodies, call arguments, tool schemas, results, event details. */
export const MAX_JSON_DEPTH = 64;

/** Whether a JSON value nests deeper than `limit` objects and arrays; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const inner of Object.values(current)) if (inner !== null && typeof inner === "object") pending.push([inner, depth + 1]);
  }
  return false;
}

export const tooDeepMessage = (what: string) =>
  `${what}: objects and arrays are nested more than ${MAX_JSON_DEPTH} levels deep, and toolgate accepts at most ${MAX_JSON_DEPTH}.`;

/** A key no object toolgate builds may be given: assigned, it would replace the object's prototype rather than be data. */
const PROTOTYPE_KEY = "__proto__";

/** Where a JSON value holds a `__proto__` key (a dotted path), if anywhere; iterative, like nestsDeeperThan. */
export function prototypeKeyAt(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, ""]];
  while (pending.length) {
    const [current, at] = pending.pop()!;
    if (current === null || typeof current !== "object") continue;
    for (const key of Object.keys(current)) {
      const path = at ? `${at}.${key}` : key;
      if (key === PROTOTYPE_KEY) return path;
      const inner = (current as Record<string, unknown>)[key];
      if (inner !== null && typeof inner === "object") pending.push([inner, path]);
    }
  }
  return undefined;
}

export const prototypeKeyMessage = (what: string, at: string) =>
  `${what} holds a key named "__proto__" (at ${at}), which toolgate never accepts: rename it.`;
