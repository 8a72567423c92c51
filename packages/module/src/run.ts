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
 * The call's signal, made when the tool first asks for it (a tool that never does pays for no timer): aborted at the
 * call's deadline, or when `cancelled` is.
 */
function callSignal(deadline: number, cancelled: AbortSignal | undefined) {
  let made: { signal: AbortSignal; timer?: NodeJS.Timeout } | undefined;
  return {
    get signal() {
      if (!made) {
        const controller = new AbortController();
        const timer = Number.isFinite(deadline) ? setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now())) : undefined;
        made = { signal: cancelled ? AbortSignal.any([controller.signal, cancelled]) : controller.signal, timer };
      }
      return made.signal;
    },
    passed: () => Number.isFinite(deadline) && Date.now() >= deadline,
    clear: () => clearTimeout(made?.timer),
  };
}

/**
 * Runs one call of a tool: its input parsed with the tool's own schema, `execute` given the call's context and a signal
 * aborted at the call's deadline (if it has one) or when `cancelled` is, its output or its throw turned into an answer.
 */
export async function runTool(tool: ModuleTool, input: unknown, call: VerifiedCall, cancelled?: AbortSignal): Promise<ToolAnswer> {
  const parsed = tool.parse(input);
  if (!parsed.ok) return { type: "error", content: `The arguments for ${tool.name} are not valid (${parsed.problems}). Rewrite them so they satisfy the tool's schema.` };
  const deadline = callSignal(call.deadline, cancelled);
  let log: Logger | undefined;
  const ctx = {
    callId: call.callId,
    agent: call.agent,
    get signal() {
      return deadline.signal;
    },
    get log() {
      return (log ??= logger(call.callId, tool.name));
    },
  };
  try {
    const output = await tool.execute(parsed.value, ctx);
    return typeof output === "string" ? { type: "text", content: output } : { type: "json", content: JSON.stringify(output) ?? "null", value: output };
  } catch (error) {
    if (deadline.passed()) return { type: "error", content: `${tool.name} did not finish before the call's timeout.` };
    return { type: "error", content: error instanceof Error ? error.message : String(error) };
  } finally {
    deadline.clear();
  }
}
