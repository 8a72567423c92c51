import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal arguments give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

export const callFingerprint = (tool: string, args: unknown) =>
  createHash("sha256").update(tool).update("\0").update(canonicalJson(args)).digest("base64url").slice(0, 22);
