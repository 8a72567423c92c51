import type { VerifiedCall } from "./call-token.js";
import type { Logger, ModuleTool } from "./tool.js";

/** A tool's answer: text, any other value as JSON (`value` is that value), or an error in words. */
export type ToolAnswer = { type: "text"; content: string } | { type: "json"; content: string; value: unknown } | { type: "error"; content: string };

function logger(callId: string, tool: string): Logger {
  const line = (level: "info" | "warn" | "error") => (message: string, fields: Record<string, unknown> = {}) =>
    console[level === "info" ? "log" : level](JSON.stringify({ level, message, callId, tool, ...fields }));
  return { info: line("info"), warn: line("warn"), error: line("error") };
}

/**
 * Runs one call of a tool: its input parsed with the tool's own schema, `execute` given the call's context and a signal
 * aborted at the call's deadline (if it has one) or when `cancelled` is, its output or its throw turned into an answer.
 */
export async function runTool(tool: ModuleTool, input: unknown, call: VerifiedCall, cancelled?: AbortSignal): Promise<ToolAnswer> {
  const parsed = tool.parse(input);
  if (!parsed.ok) return { type: "error", content: `The arguments for ${tool.name} are not valid (${parsed.problems}). Rewrite them so they satisfy the tool's schema.` };
  const deadline = new AbortController();
  const timer = Number.isFinite(call.deadline) ? setTimeout(() => deadline.abort(), Math.max(0, call.deadline - Date.now())) : undefined;
  const signal = cancelled ? AbortSignal.any([deadline.signal, cancelled]) : deadline.signal;
  try {
    const output = await tool.execute(parsed.value, { callId: call.callId, agent: call.agent, signal, log: logger(call.callId, tool.name) });
    return typeof output === "string" ? { type: "text", content: output } : { type: "json", content: JSON.stringify(output) ?? "null", value: output };
  } catch (error) {
    if (deadline.signal.aborted) return { type: "error", content: `${tool.name} did not finish before the call's timeout.` };
    return { type: "error", content: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
