import { agentError } from "../agent/errors";
import { commonError } from "../error";
import type { ToolgateError } from "../error";
import { executorError } from "../executor/errors";
import { tooDeepMessage } from "../json";
import { guardError } from "./errors";
import type { ArgumentIssue } from "./arguments";

export const refusal = {
  invalidArguments: (tool: string, details: ArgumentIssue[]) =>
    guardError(
      "invalid_arguments",
      `The arguments for "${tool}" do not match its schema: ${details
        .slice(0, 3)
        .map((d) => `${d.path} ${d.message}`)
        .join("; ")}. Rewrite the arguments so they satisfy the tool's parameters.`,
      { toolName: tool, details, recoverable: true },
    ),
  rateLimited: (tool: string, limit: string, retryAfterSeconds: number) =>
    guardError("rate_limited", `The tool "${tool}" is rate limited (${limit}); try again in ${retryAfterSeconds} s.`, {
      toolName: tool,
      limit,
      retryAfterSeconds,
      recoverable: true,
    }),
  doomLoop: (tool: string, runs: number, repeatLimit: number) =>
    guardError(
      "doom_loop_detected",
      `"${tool}" has just run ${runs} ${runs === 1 ? "time" : "times"} in a row with these same arguments, and toolgate allows at most ${repeatLimit} identical ${repeatLimit === 1 ? "call" : "calls"} in a row. Repeating it will not change the outcome: change the arguments or try another approach.`,
      { toolName: tool, repeats: runs, repeatLimit, recoverable: true },
    ),
  noExecutor: (tool: string, group: string) =>
    executorError("no_executor", `The tool "${tool}" is in the group "${group}", which has no executor bound, so toolgate cannot run it.`, {
      toolName: tool,
      recoverable: false,
    }),
  tooDeep: (tool: string) =>
    commonError("json_too_deep", tooDeepMessage(`The arguments for "${tool}"`), { toolName: tool, recoverable: true }),
  revoked: () => agentError("unauthenticated", "The token has been revoked."),
  terminated: (agentId: string) => agentError("forbidden", `The agent "${agentId}" is terminated.`),
};

/** A refusal of the caller itself (its token revoked, its agent terminated), as opposed to a refusal of what it asked. */
export const isCallerRefusal = (error: ToolgateError) => (error.status === 401 && error.code === "unauthenticated") || (error.status === 403 && error.code === "forbidden");
