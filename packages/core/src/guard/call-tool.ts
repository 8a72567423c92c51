import type { CallRequest } from "../call/schema";
import type { ToolgateError } from "../error";
import { CALL_TOOL, metaTool } from "../builtin/tool-search";
import { loadArgumentValidator, validateArguments } from "./arguments";
import { refusal } from "./refusal";

export type Unwrapped = { request: CallRequest; problem?: ToolgateError };

/**
 * call_tool { name, arguments } is the named tool's call: the guard decides, runs and records that tool, with every
 * check it would make were the tool called by name. Arguments that are not a call_tool's are the problem to refuse.
 */
export async function throughCallTool(request: CallRequest): Promise<Unwrapped> {
  if (request.tool !== CALL_TOOL) return { request };
  await loadArgumentValidator();
  const checked = validateArguments(metaTool(CALL_TOOL)!, request.arguments, true);
  if (!checked.valid) return { request, problem: refusal.invalidArguments(CALL_TOOL, checked.issues) };
  const { name, arguments: args } = checked.value as { name: string; arguments: Record<string, unknown> };
  if (name === CALL_TOOL) return { request, problem: refusal.invalidArguments(CALL_TOOL, [{ path: "name", message: "must name the tool to call, not call_tool itself" }]) };
  return { request: { tool: name, arguments: args } };
}
