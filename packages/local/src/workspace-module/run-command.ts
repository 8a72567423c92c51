import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { defineTool } from "@toolgate/module";
import { BUILTIN } from "./builtin";
import { confine } from "./confine";
import type { Workspace } from "./confine";
import { fileError } from "./file-errors";
import { CappedOutput } from "./output";

/** Of each of stdout and stderr, the first and the last this many bytes are returned. */
export const OUTPUT_HALF_BYTES = 32 * 1024;
/** A command asked to stop (SIGTERM) at its timeout is killed (SIGKILL) if it still runs this much later. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long its output may still flow from children it left running before the answer goes. */
const DRAIN_MS = 250;
const SHELL = "/bin/sh";

/** Variables a command does not inherit from the module's process: toolgate's (the admin token among them) and secret-looking ones. */
const HIDDEN_VARIABLE = /^TOOLGATE_|token|secret|passw|credential|api_?key|private_?key/i;

const commandEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !HIDDEN_VARIABLE.test(name)));

export type CommandResult = { exitCode: number | null; signal?: string; stdout: string; stderr: string; truncated: boolean; timedOut: boolean };

/**
 * Runs a shell line in its own process group, with no input: at `timeoutMs` the whole group is stopped (SIGTERM, then
 * SIGKILL), and when `signal` aborts (toolgate no longer waits) it is killed at once and the run rejects.
 */
export function runShell(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const child = spawn(SHELL, ["-c", command], { cwd, env: commandEnvironment(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const stdout = new CappedOutput(OUTPUT_HALF_BYTES);
    const stderr = new CappedOutput(OUTPUT_HALF_BYTES);
    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    const killGroup = (name: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, name);
      } catch {
        // The group is gone already.
      }
    };
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      signal.removeEventListener("abort", aborted);
      outcome();
    };
    const aborted = () => {
      killGroup("SIGKILL");
      settle(() => reject(signal.reason));
    };
    signal.addEventListener("abort", aborted, { once: true });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup("SIGTERM");
        timers.push(setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS));
      }, timeoutMs),
    );
    const answer = (code: number | null, killedBy: NodeJS.Signals | null) =>
      settle(() =>
        resolve({
          exitCode: code,
          ...(killedBy ? { signal: killedBy } : {}),
          stdout: stdout.text(),
          stderr: stderr.text(),
          truncated: stdout.truncated || stderr.truncated,
          timedOut,
        }),
      );
    child.once("error", (error) => settle(() => reject(error)));
    child.once("exit", (code, killedBy) => {
      // Children left running in the background may hold the output open: answer once it ends, or soon after.
      child.once("close", () => answer(code, killedBy));
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          answer(code, killedBy);
        }, DRAIN_MS),
      );
    });
  });
}

export const runCommandTool = (workspace: Workspace) =>
  defineTool({
    ...BUILTIN.runCommand,
    execute: async ({ command, cwd = ".", timeoutMs }, ctx) => {
      const dir = await confine(workspace, cwd);
      const info = await stat(dir).catch((error) => {
        throw fileError(cwd, error);
      });
      if (!info.isDirectory()) throw new Error(`The working directory ${JSON.stringify(cwd)} is not a directory.`);
      return runShell(command, dir, timeoutMs, ctx.signal);
    },
  });
