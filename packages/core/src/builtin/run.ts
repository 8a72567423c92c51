import type { ToolOutput } from "@toolgate/module/tool";
import { StoreUnavailableError, ToolgateError } from "../error";
import { noNativeImplementation } from "../executor/errors";
import type { ExecutorCall, Natives } from "../executor/index";
import type { ToolResult } from "../executor/schema";
import { NATIVE_TOOLS } from "./groups";
import type { NativeContext, NativeServices, NativeTool } from "./native";

const errorResult = (message: string, metadata?: Record<string, unknown>): ToolResult => ({
  content: message,
  type: "error",
  ...(metadata ? { metadata } : {}),
});

const resultOf = (output: ToolOutput): ToolResult =>
  typeof output === "string" ? { content: output, type: "text" } : { content: JSON.stringify(output), type: "json" };

/** A tool's failure is its error result (with the error's code); a refusal (403) and an unavailable store are the call's, so they are thrown on. */
function failed(error: unknown): ToolResult {
  if ((error instanceof ToolgateError && error.status === 403) || error instanceof StoreUnavailableError) throw error;
  const code = (error as { code?: unknown })?.code;
  return errorResult(error instanceof Error ? error.message : String(error), typeof code === "string" ? { code } : undefined);
}

/** One call of a tool toolgate runs: its input checked with the tool's own schema, its output or failure as a tool result. */
export async function runNativeTool(tool: NativeTool, call: ExecutorCall, context: NativeContext): Promise<ToolResult> {
  const input = tool.parse(call.arguments);
  if (!input.ok)
    return errorResult(`The arguments for ${tool.name} are not valid (${input.problems}). Rewrite the input so it satisfies the tool's schema.`, { code: "invalid_arguments" });
  try {
    return resultOf(await tool.execute(input.value, context));
  } catch (error) {
    return failed(error);
  }
}

/** Runs the tools toolgate implements (org_management, artifact, search_tools) with its services, on behalf of the calling agent. */
export const nativeRunner = (services: NativeServices): Natives => ({
  run(call, signal) {
    const tool = NATIVE_TOOLS.get(call.tool);
    if (!tool) throw noNativeImplementation(call.tool);
    return runNativeTool(tool, call, { ...services, callId: call.callId, agentId: call.agentId, signal });
  },
});
