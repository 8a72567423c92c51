import { policyError } from "./errors";
import { everyPath } from "./facts/index";
import type { CallFacts } from "./facts/index";
import type { StoredPolicy } from "./schema";

export const policyUnavailable = (tool: string, why: string) =>
  policyError("policy_unavailable", `The policies about "${tool}" cannot be evaluated right now (${why}), so the call was not run. Try again later.`, {
    toolName: tool,
    recoverable: false,
  });

export const unreadableCommand = (tool: string, argument: string, problem: string, code: "unreadable_command" | "command_too_complex" = "unreadable_command") =>
  policyError(code, `The command line in "${argument}" of "${tool}" cannot be checked against the policies. ${problem}`, {
    toolName: tool,
    argument,
    recoverable: true,
  });

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What the deciding deny policies say, and where a path left the workspace, which root it left. */
export function policyDenied(tool: string, deciding: readonly StoredPolicy[], facts: CallFacts | undefined, root: string | null) {
  const ids = deciding.map((policy) => policy.id);
  const reasons = [...new Set(deciding.map((policy) => sentence(policy.reason ?? "A policy denies this call")))];
  const outside = root === null || facts === undefined ? undefined : everyPath(facts).find((path) => path.outsideWorkspace);
  const where = outside ? ` The path "${outside.path}" is outside the workspace root "${root}": use a path inside it.` : "";
  const named = ids.length > 1 ? `the policies ${ids.map((id) => `"${id}"`).join(", ")}` : `the policy "${ids[0]}"`;
  return policyError("policy_denied", `The call to "${tool}" was refused by ${named}: ${reasons.join(" ")}${where}`, {
    toolName: tool,
    policies: ids,
    recoverable: deciding.length > 0 && deciding.every((policy) => policy.recoverable),
    ...(outside ? { workspaceRoot: root } : {}),
  });
}
