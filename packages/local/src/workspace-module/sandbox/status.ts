import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/** What bwrap says on its status descriptor: the sandbox's first process (its pid on this machine), then how the command ended. */
export type SandboxStatus = { initPid?: number; exitCode?: number };

/**
 * Follows bwrap's `--json-status-fd` documents, one a line: `child-pid` once the sandbox's first process exists (with
 * --new-session it leads the command's process group), `exit-code` only once the command ran and ended, so a
 * sandbox that failed to start has none.
 */
export function followStatus(stream: Readable): SandboxStatus {
  const status: SandboxStatus = {};
  createInterface({ input: stream }).on("line", (line) => {
    const document = JSON.parse(line) as { "child-pid"?: number; "exit-code"?: number };
    if (document["child-pid"] !== undefined) status.initPid = document["child-pid"];
    if (document["exit-code"] !== undefined) status.exitCode = document["exit-code"];
  });
  return status;
}
