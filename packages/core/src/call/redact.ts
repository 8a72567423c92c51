import type { ToolResult } from "./schema";

export const REDACTED = "[REDACTED]";
export const MAX_STORED_BYTES = 16 * 1024;

const SECRET_WORDS = new Set(["password", "passwd", "passphrase", "pwd", "token", "secret", "authorization", "credential", "credentials", "cookie", "apikey", "privatekey", "secretkey", "accesskey", "sessionid"]);

const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Secret-looking: a word of the key (camelCase, snake_case or kebab-case), or two adjacent words, names a secret. */
export function isSecretKey(key: string): boolean {
  const parts = words(key);
  return parts.some((word, i) => SECRET_WORDS.has(word) || SECRET_WORDS.has(word + (parts[i + 1] ?? "")));
}

/** A copy of a JSON value with every secret-looking key's value replaced, at any depth. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, isSecretKey(key) ? REDACTED : redact(inner)]),
    );
  return value;
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

function cutToBytes(text: string, maxBytes: number) {
  const cut = Buffer.from(text, "utf8").subarray(0, maxBytes).toString("utf8");
  return cut.endsWith("\uFFFD") ? cut.slice(0, -1) : cut;
}

/** DynamoDB nests maps and lists 32 levels deep at most; the call record itself takes a few. */
export const MAX_STORED_DEPTH = 24;

export function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const inner of Object.values(value)) deepest = Math.max(deepest, depthOf(inner));
  return deepest + 1;
}

/** Arguments as the call record keeps them: redacted, and as JSON text (cut to 16 KiB) when too large or too deep to store as is. */
export function storedArguments(args: unknown): { arguments: unknown; argumentsTruncated?: true } {
  const redacted = redact(args);
  const text = JSON.stringify(redacted) ?? "null";
  const fits = byteLength(text) <= MAX_STORED_BYTES;
  if (fits && depthOf(redacted) <= MAX_STORED_DEPTH) return { arguments: redacted };
  return fits ? { arguments: text } : { arguments: cutToBytes(text, MAX_STORED_BYTES), argumentsTruncated: true };
}

export function storedResult(result: ToolResult): ToolResult & { truncated?: true } {
  const { metadata: _metadata, ...withoutMetadata } = result;
  if (result.metadata && depthOf(result.metadata) > MAX_STORED_DEPTH) return storedResult(withoutMetadata);
  if (byteLength(JSON.stringify(result)) <= MAX_STORED_BYTES) return result;
  const stored = (content: string) => ({ ...withoutMetadata, content, truncated: true as const });
  const fits = (content: string) => byteLength(JSON.stringify(stored(content))) <= MAX_STORED_BYTES;
  let low = 0;
  let high = Math.min(result.content.length, MAX_STORED_BYTES);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(cutToBytes(result.content, middle))) low = middle;
    else high = middle - 1;
  }
  return stored(cutToBytes(result.content, low));
}
