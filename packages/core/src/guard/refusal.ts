import { ToolgateError } from "../error";
import type { ArgumentIssue } from "./arguments";

export const refusal = {
  disabled: (tool: string) =>
    new ToolgateError(403, "tool_disabled", `The tool "${tool}" has been disabled by an administrator.`, { toolName: tool, recoverable: false }),
  permission: (tool: string, reason: string) =>
    new ToolgateError(403, "permission_denied", `You may not use the tool "${tool}": ${reason}.`, { toolName: tool, reason, recoverable: false }),
  invalidArguments: (tool: string, details: ArgumentIssue[]) =>
    new ToolgateError(
      400,
      "invalid_arguments",
      `The arguments for "${tool}" do not match its schema: ${details
        .slice(0, 3)
        .map((d) => `${d.path} ${d.message}`)
        .join("; ")}. Rewrite the arguments so they satisfy the tool's parameters.`,
      { toolName: tool, details, recoverable: true },
    ),
  rateLimited: (tool: string, limit: string, retryAfterSeconds: number) =>
    new ToolgateError(429, "rate_limited", `The tool "${tool}" is rate limited (${limit}); try again in ${retryAfterSeconds} s.`, {
      toolName: tool,
      limit,
      retryAfterSeconds,
      recoverable: true,
    }),
  doomLoop: (tool: string, repeats: number) =>
    new ToolgateError(
      429,
      "doom_loop_detected",
      `This would be call number ${repeats} in a row to "${tool}" with the same arguments. Repeating it will not change the outcome: change the arguments or try another approach.`,
      { toolName: tool, repeats, recoverable: true },
    ),
  noExecutor: (tool: string, group: string) =>
    new ToolgateError(501, "no_executor", `The tool "${tool}" is in the group "${group}", which has no executor bound, so toolgate cannot run it.`, {
      toolName: tool,
      recoverable: false,
    }),
  busy: () =>
    new ToolgateError(503, "busy", "Too many calls of this agent were admitted at once; retry the call.", { recoverable: true }),
  revoked: () => new ToolgateError(401, "unauthenticated", "The token has been revoked."),
  terminated: (agentId: string) => new ToolgateError(403, "forbidden", `The agent "${agentId}" is terminated.`),
};
