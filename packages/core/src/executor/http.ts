import { ToolgateError } from "../error";
import type { Executor } from "../group/index";
import { ToolResult } from "../call/schema";

const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type HttpCallPayload = {
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
  agentId: string;
  roleId: string;
};

const failed = (url: string, reason: string) =>
  new ToolgateError(502, "executor_failed", `The tool's executor at ${new URL(url).origin} failed: ${reason}.`, {
    recoverable: false,
  });

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
    text = await response.text();
  } catch (error) {
    if (signal.aborted)
      throw new ToolgateError(504, "tool_timeout", `The tool "${payload.tool}" did not finish within ${timeoutMs} ms.`, {
        timeoutMs,
        recoverable: true,
      });
    throw failed(executor.url, (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : "it could not be reached");
  }
  if (!response.ok) throw failed(executor.url, `it answered HTTP ${response.status}`);
  if (text.length > MAX_RESPONSE_BYTES) throw failed(executor.url, "its result was larger than 5 MiB");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed(executor.url, "it did not answer with JSON");
  }
  const parsed = ToolResult.safeParse(body);
  if (!parsed.success) throw failed(executor.url, 'it did not answer with a tool result { content: string, type?: "text" | "json" | "error" }');
  return parsed.data;
}
