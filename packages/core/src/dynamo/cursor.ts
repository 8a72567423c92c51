import { badRequest } from "../error";

export const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString("base64url");

/** A cursor this service handed out for the same partition and item kind, or a 400. */
export function decodeCursor(cursor: string, pk: string, skPrefix: string): Record<string, unknown> {
  const invalid = badRequest("invalid_cursor", "The cursor is not one this list handed out; start again without it.");
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  if (typeof key !== "object" || key === null || Array.isArray(key)) throw invalid;
  const { pk: keyPk, sk, ...rest } = key as Record<string, unknown>;
  if (keyPk !== pk || typeof sk !== "string" || !sk.startsWith(skPrefix) || Object.keys(rest).length) throw invalid;
  return { pk: keyPk, sk };
}
