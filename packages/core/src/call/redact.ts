import type { ToolResult } from "../executor/schema";
import { asBlocks, summariseMcpResult } from "./mcp-summary";
import type { StoredResult } from "./schema";

export const REDACTED = "[REDACTED]";
export const MAX_STORED_BYTES = 16 * 1024;
/** Redacted values shorter than this are not scrubbed from results: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/** A key whose letters and digits, lower-cased, contain one of these is secret-looking. */
const SECRET_FRAGMENTS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "authorization",
  "credential",
  "privatekey",
  "accesskey",
  "sessionid",
  "cookie",
];
/** Too short to look for inside other words ("author", "authority"), but secret-looking as a word of their own. */
const SECRET_WORDS = new Set(["pwd", "auth"]);

/** Keys already judged: a result repeats the same few keys in every item of a list. Bounded in number and length. */
const knownKeys = new Map<string, boolean>();
const MAX_KNOWN_KEYS = 4096;
const MAX_KNOWN_KEY_LENGTH = 128;

const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * Secret-looking: the key, lower-cased with everything but letters and digits removed, contains a secret fragment
 * (APITOKEN, dbpassword, password1, clientSecret, max_tokens too), or a word of it (camelCase, snake_case, kebab-case) is "pwd" or "auth".
 */
export function isSecretKey(key: string): boolean {
  const known = knownKeys.get(key);
  if (known !== undefined) return known;
  const normalised = key.normalize("NFKC");
  const compact = normalised.toLowerCase().replace(/[^a-z0-9]/g, "");
  const secret = SECRET_FRAGMENTS.some((fragment) => compact.includes(fragment)) || words(normalised).some((word) => SECRET_WORDS.has(word));
  if (key.length <= MAX_KNOWN_KEY_LENGTH) {
    if (knownKeys.size >= MAX_KNOWN_KEYS) knownKeys.clear();
    knownKeys.set(key, secret);
  }
  return secret;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === "object";

/** The keys of a { name, value } or { key, value } pair whose name is secret-looking: its "value" fields. */
function secretPairValueKeys(object: Record<string, unknown>, keys: string[]): Set<string> | undefined {
  const named = keys.some((key) => /^(name|key)$/i.test(key) && typeof object[key] === "string" && isSecretKey(object[key] as string));
  if (!named) return undefined;
  const values = keys.filter((key) => key.toLowerCase() === "value");
  return values.length > 0 ? new Set(values) : undefined;
}

interface Walk {
  /** Applied to every string leaf and key left in place. */
  scrub?: (text: string) => string;
  /** Values under secret-looking keys (and secret pairs) are kept: only the secrets are scrubbed. */
  keepSecretLooking?: boolean;
  /** Receives every value replaced by REDACTED. */
  removed?: unknown[];
  /** Set when anything was redacted or scrubbed. */
  changed: boolean;
  /** Only find out whether anything would change: nothing is built, and the walk stops at the first change. */
  checkOnly?: boolean;
}

interface Frame {
  value: object;
  /** An object's own keys; undefined for an array, walked by index. */
  keys: string[] | undefined;
  length: number;
  secretValues: Set<string> | undefined;
  out: [string, unknown][];
  next: number;
  /** Its key in the parent's output. */
  key: string;
}

/**
 * A copy of a JSON value with secret-looking keys' values and secret pairs' values replaced by REDACTED, and the rest scrubbed.
 * Iterative, so any depth is safe; objects are rebuilt with Object.fromEntries, so "__proto__" stays an own key.
 */
function walk(root: unknown, context: Walk): unknown {
  const scrub = (text: string) => {
    if (!context.scrub) return text;
    const scrubbed = context.scrub(text);
    if (scrubbed !== text) context.changed = true;
    return scrubbed;
  };
  const leaf = (value: unknown) => (typeof value === "string" ? scrub(value) : value);
  const open = (value: object, key: string): Frame => {
    if (Array.isArray(value)) return { value, keys: undefined, length: value.length, secretValues: undefined, out: [], next: 0, key };
    const keys = Object.keys(value);
    const secretValues = context.keepSecretLooking ? undefined : secretPairValueKeys(value as Record<string, unknown>, keys);
    return { value, keys, length: keys.length, secretValues, out: [], next: 0, key };
  };
  if (!isContainer(root)) return leaf(root);
  const stack = [open(root, "")];
  let built: unknown;
  while (stack.length > 0) {
    if (context.checkOnly && context.changed) return undefined;
    const frame = stack[stack.length - 1]!;
    if (frame.next < frame.length) {
      const index = frame.next++;
      const key = frame.keys ? frame.keys[index]! : "";
      const inner = (frame.value as Record<string | number, unknown>)[frame.keys ? key : index];
      const storedKey = frame.keys ? scrub(key) : key;
      if (frame.keys && !context.keepSecretLooking && (isSecretKey(key) || frame.secretValues?.has(key))) {
        context.removed?.push(inner);
        context.changed = true;
        frame.out.push([storedKey, REDACTED]);
      } else if (isContainer(inner)) stack.push(open(inner, storedKey));
      else if (context.checkOnly) leaf(inner);
      else frame.out.push([storedKey, leaf(inner)]);
      continue;
    }
    stack.pop();
    if (context.checkOnly) continue;
    built = frame.keys ? Object.fromEntries(frame.out) : frame.out.map(([, inner]) => inner);
    stack[stack.length - 1]?.out.push([frame.key, built]);
  }
  return built;
}

/** "Bearer <token>", "Basic <credentials>": the credential travels on its own too, so it is a secret of its own. */
const AUTHORIZATION_VALUE = /^(?:bearer|basic|token|digest|apikey|api-key|key|jwt|sso-key)\s+(\S+)$/i;

/** Every string leaf of the values (and the credential of an authorization value) and numbers as text (true and false are no secret), deduplicated, longest first (then in order of appearance), the short ones left out. */
function secretsIn(values: unknown[]): string[] {
  const found = new Set<string>();
  const pending = [...values].reverse();
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      found.add(value);
      const credential = AUTHORIZATION_VALUE.exec(value.trim())?.[1];
      if (credential) found.add(credential);
    }
    else if (typeof value === "number") found.add(String(value));
    else if (isContainer(value)) for (const inner of Object.values(value).reverse()) pending.push(inner);
  }
  return [...found].filter((secret) => secret.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** A copy of a JSON value with every secret-looking key's value, and every secret-named pair's value, replaced, at any depth. */
export function redact(value: unknown): unknown {
  return walk(value, { changed: false });
}

/** The arguments as they may be stored, and every value taken out of them, for scrubbing wherever it appears again. */
export function redactArguments(args: unknown): { redacted: unknown; secrets: string[] } {
  const removed: unknown[] = [];
  const redacted = walk(args, { removed, changed: false });
  return { redacted, secrets: secretsIn(removed) };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Replaces every secret, and its JSON-escaped form, in one pass, the longest match first. */
function scrubberFor(secrets: string[]): (text: string) => string {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (secret === "") continue;
    needles.add(secret);
    needles.add(JSON.stringify(secret).slice(1, -1));
  }
  if (needles.size === 0) return (text) => text;
  const pattern = new RegExp(
    [...needles]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
  return (text) => text.replace(pattern, () => REDACTED);
}

/** The text with every occurrence of each secret, plain or JSON-escaped, replaced by REDACTED. */
export function scrubText(text: string, secrets: string[]): string {
  return scrubberFor(secrets)(text);
}

/** A copy of a JSON value with secret-looking keys (and secret pairs) redacted and the secrets scrubbed from every string and key. */
export function scrubValue(value: unknown, secrets: string[]): unknown {
  return walk(value, { scrub: scrubberFor(secrets), changed: false });
}

/** The JSON value with the secrets scrubbed from every string and key, and nothing else changed: what an answer may carry back. */
export function scrubSecrets<T>(value: T, secrets: string[]): T {
  return secrets.length === 0 ? value : (walk(value, { scrub: scrubberFor(secrets), keepSecretLooking: true, changed: false }) as T);
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

/** The first maxBytes bytes of UTF-8 as text, less a character they would cut in two. */
function wholeCharacters(encoded: Buffer, maxBytes: number) {
  const cut = encoded.subarray(0, maxBytes).toString("utf8");
  return cut.endsWith("\uFFFD") ? cut.slice(0, -1) : cut;
}

/** UTF-8 of the text's start, as much as any cut to maxBytes reads: a character takes at least one byte, so no more than maxBytes of them. */
const encodedStart = (text: string, maxBytes: number) => Buffer.from(text.slice(0, maxBytes), "utf8");

const cutToBytes = (text: string, maxBytes: number) => wholeCharacters(encodedStart(text, maxBytes), maxBytes);

/** DynamoDB nests maps and lists 32 levels deep at most; the call record itself takes a few. */
export const MAX_STORED_DEPTH = 24;

/** JSON.stringify recurses: JSON content nested deeper than this is not re-serialised. */
const MAX_SERIALISED_DEPTH = 256;

export function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [inner, depth] = pending.pop()!;
    if (!isContainer(inner)) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(inner)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Arguments as the call record keeps them, and the secrets taken out of them (to scrub from the result and error later). */
export function storedCallArguments(args: unknown): { stored: { arguments: unknown; argumentsTruncated?: true }; secrets: string[] } {
  const { redacted, secrets } = redactArguments(args);
  const scrubbed = scrubValue(redacted, secrets);
  const text = JSON.stringify(scrubbed) ?? "null";
  const fits = byteLength(text) <= MAX_STORED_BYTES;
  if (fits && depthOf(scrubbed) <= MAX_STORED_DEPTH) return { stored: { arguments: scrubbed }, secrets };
  return {
    stored: fits ? { arguments: text } : { arguments: cutToBytes(text, MAX_STORED_BYTES), argumentsTruncated: true },
    secrets,
  };
}

/** Arguments as the call record keeps them: redacted, and as JSON text (cut to 16 KiB) when too large or too deep to store as is. */
export function storedArguments(args: unknown): { arguments: unknown; argumentsTruncated?: true } {
  return storedCallArguments(args).stored;
}

/** JSON text of an object or array, parsed; otherwise undefined. */
function parsedContainer(content: string): object | undefined {
  if (!/^\s*[[{]/.test(content)) return undefined;
  try {
    const parsed: unknown = JSON.parse(content);
    return isContainer(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Content without secrets: JSON content with secret-looking keys is redacted and re-serialised (only then: untouched JSON keeps its text). */
function scrubbedContent(content: string, scrub: (text: string) => string): string {
  const parsed = parsedContainer(content);
  if (parsed !== undefined) {
    const check: Walk = { scrub, changed: false, checkOnly: true };
    walk(parsed, check);
    if (check.changed) {
      const cleaned = walk(parsed, { scrub, changed: false });
      return depthOf(cleaned) <= MAX_SERIALISED_DEPTH ? scrub(JSON.stringify(cleaned)) : REDACTED;
    }
  }
  return scrub(content);
}

/**
 * A result as the call record keeps it: the secrets scrubbed from its content and metadata, secret-looking keys in JSON content
 * and metadata redacted, metadata dropped when too deep, and the content cut so that the whole stays within 16 KiB.
 * Of an MCP server's whole answer only a summary of its blocks is kept (no text, image, audio or blob data).
 */
export function storedResult(result: ToolResult, secrets: string[] = []): StoredResult {
  const scrub = scrubberFor(secrets);
  const { metadata, mcpResult, mcpAnswer, asksForInput: _asked, ...rest } = result;
  const scrubbedMetadata = metadata === undefined ? undefined : (scrubValue(metadata, secrets) as Record<string, unknown>);
  const answered = mcpResult ?? (mcpAnswer && asBlocks(mcpAnswer));
  const summary = answered === undefined ? {} : { mcp: summariseMcpResult(answered, scrub) };
  const base = { ...rest, content: scrubbedContent(result.content, scrub), ...summary };
  const whole = scrubbedMetadata !== undefined && depthOf(scrubbedMetadata) <= MAX_STORED_DEPTH ? { ...base, metadata: scrubbedMetadata } : base;
  if (base.content.length <= MAX_STORED_BYTES && byteLength(JSON.stringify(whole)) <= MAX_STORED_BYTES) return whole;
  const stored = (content: string) => ({ ...base, content, truncated: true as const });
  const fits = (content: string) => byteLength(JSON.stringify(stored(content))) <= MAX_STORED_BYTES;
  const start = encodedStart(base.content, MAX_STORED_BYTES);
  let low = 0;
  let high = Math.min(start.length, MAX_STORED_BYTES);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(wholeCharacters(start, middle))) low = middle;
    else high = middle - 1;
  }
  return stored(wholeCharacters(start, low));
}

/** An error as the call record keeps it: the secrets scrubbed from its message. */
export function storedError(error: { code: string; message: string }, secrets: string[]): { code: string; message: string } {
  return { code: error.code, message: scrubText(error.message, secrets) };
}
