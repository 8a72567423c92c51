import type { Context } from "hono";
import { nestsDeeperThan, prototypeKeyAt, prototypeKeyMessage, tooDeepMessage } from "@toolgate/core/json";

/** Why a request body is not JSON toolgate reads: its code (400 each) and a sentence. */
export type BodyProblem = { code: "invalid_json" | "json_too_deep"; message: string };
export type ReadBody = { text: string; json?: unknown; problem?: BodyProblem };

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The request body as text and JSON, or why it cannot be read: bytes that are not UTF-8 (never replaced and stored),
 * text that is not JSON, JSON nested deeper than the one limit (unless `depth` is judged elsewhere) or holding a
 * `__proto__` key. An empty body has no JSON and no problem.
 */
export async function readBody(c: Context, { depth = true }: { depth?: boolean } = {}): Promise<ReadBody> {
  let text: string;
  try {
    text = UTF8.decode(await c.req.arrayBuffer());
  } catch {
    return { text: "", problem: { code: "invalid_json", message: "The request body is not valid UTF-8 text." } };
  }
  if (text.trim() === "") return { text };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { text, problem: { code: "invalid_json", message: "The request body is not valid JSON." } };
  }
  if (depth && nestsDeeperThan(json)) return { text, json, problem: { code: "json_too_deep", message: tooDeepMessage("The request body") } };
  const prototypeKey = text.includes("proto") ? prototypeKeyAt(json) : undefined;
  if (prototypeKey !== undefined) return { text, json, problem: { code: "invalid_json", message: prototypeKeyMessage("The request body", prototypeKey) } };
  return { text, json };
}
