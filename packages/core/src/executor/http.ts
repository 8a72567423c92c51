import { ToolgateError } from "../error";
import type { Executor } from "./schema";
import { ToolResult } from "./schema";
import { nestsDeeperThan, MAX_JSON_DEPTH } from "../json";

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type HttpCallPayload = { callId: string; tool: string; arguments: Record<string, unknown>; agentId: string; roleId: string };

const failed = (url: string, reason: string) =>
  new ToolgateError(502, "executor_failed", `The tool's executor at ${new URL(url).origin} failed: ${reason}.`, {
    recoverable: false,
  });

const tooLarge = (url: string) => failed(url, `its result was larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);

/** The body as text, read chunk by chunk and abandoned as soon as it passes the limit: a huge answer never sits in memory. */
async function readLimited(response: Response, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw tooLarge(url);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw tooLarge(url);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function runHttpExecutor(
  executor: Extract<Executor, { type: "http" }>,
  payload: HttpCallPayload,
  timeoutMs: number,
): Promise<ToolResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(executor.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "user-agent": "toolgate" },
      body: JSON.stringify(payload),
      signal,
      redirect: "error",
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw failed(executor.url, `it answered HTTP ${response.status}`);
    }
    text = await readLimited(response, executor.url);
  } catch (error) {
    if (error instanceof ToolgateError) throw error;
    if (signal.aborted)
      throw new ToolgateError(504, "tool_timeout", `The tool "${payload.tool}" did not finish within ${timeoutMs} ms.`, {
        timeoutMs,
        recoverable: true,
      });
    throw failed(executor.url, (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : "it could not be reached");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed(executor.url, "it did not answer with JSON");
  }
  if (nestsDeeperThan(body)) throw failed(executor.url, `its result nests more than ${MAX_JSON_DEPTH} levels deep`);
  const parsed = ToolResult.safeParse(body);
  if (!parsed.success) throw failed(executor.url, 'it did not answer with a tool result { content: string, type?: "text" | "json" | "error" }');
  return parsed.data;
}
