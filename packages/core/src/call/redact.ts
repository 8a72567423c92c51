import type { ToolResult } from "./schema";

export const REDACTED = "[REDACTED]";
export const MAX_STORED_BYTES = 16 * 1024;

const SECRET_KEY = /pass(word|wd|phrase)?$|^pwd$|token|secret|api[_-]?key|authori[sz]ation|credential|private[_-]?key|cookie|session[_-]?id/i;

export const isSecretKey = (key: string) => SECRET_KEY.test(key);

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

export function storedArguments(args: unknown): { arguments: unknown; argumentsTruncated?: true } {
  const redacted = redact(args);
  const text = JSON.stringify(redacted) ?? "null";
  if (byteLength(text) <= MAX_STORED_BYTES) return { arguments: redacted };
  return { arguments: cutToBytes(text, MAX_STORED_BYTES), argumentsTruncated: true };
}

export function storedResult(result: ToolResult): ToolResult & { truncated?: true } {
  if (byteLength(JSON.stringify(result)) <= MAX_STORED_BYTES) return result;
  const { metadata: _metadata, ...withoutMetadata } = result;
  const room = MAX_STORED_BYTES - byteLength(JSON.stringify({ ...withoutMetadata, content: "" })) - 64;
  return { ...withoutMetadata, content: cutToBytes(result.content, Math.max(room, 0)), truncated: true };
}
