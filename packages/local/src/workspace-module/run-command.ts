import type { Readable } from "node:stream";
import { defineTool } from "@toolgate/module";
import { BUILTIN } from "./builtin";
import type { FileWorkerClient } from "./file-worker-client";
import { CappedOutput } from "./output";
import { followStatus } from "./sandbox";
import type { Sandbox } from "./sandbox";

/** Of each of stdout and stderr, the first and the last this many bytes are returned. */
export const OUTPUT_HALF_BYTES = 32 * 1024;
/** A command asked to stop (SIGTERM) at its timeout is killed (SIGKILL) if it still runs this much later. */
const KILL_GRACE_MS = 2_000;
const STATUS_FD = 3;
/** What bwrap reports for a command that SIGTERM ended, as a shell does: 128 + the signal's number. */
const ENDED_BY_SIGTERM = 128 + 15;

export type CommandResult = { exitCode: number | null; signal?: string; stdout: string; stderr: string; truncated: boolean; timedOut: boolean };
export type CommandRun = { command: string; cwd: string; timeoutMs: number };

/**
 * Runs a shell line in a sandbox of its own, started in `cwd` (confined by the file worker), with no input: at
 * `timeoutMs` its process group is asked to stop (SIGTERM), and the sandbox is killed (SIGKILL) if it still runs two
 * seconds later; when `signal` aborts (toolgate no longer waits) the sandbox is killed at once and the run rejects.
 * Killing bwrap ends everything inside, and so does the command's end: nothing it started outlives it.
 */
export async function runSandboxed(sandbox: Sandbox, files: FileWorkerClient, { command, cwd, timeoutMs }: CommandRun, signal: AbortSignal): Promise<CommandResult> {
  const { path: dir } = (await files.call("working_directory", { cwd }, signal)) as { path: string };
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const child = sandbox.spawn(sandbox.shell(command), { cwd: dir, network: true, statusFd: STATUS_FD, stdio: ["ignore", "pipe", "pipe", "pipe"] });
    const status = followStatus(child.stdio[STATUS_FD] as Readable);
    const stdout = new CappedOutput(OUTPUT_HALF_BYTES);
    const stderr = new CappedOutput(OUTPUT_HALF_BYTES);
    child.stdout!.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.add(chunk));

    let timedOut = false;
    let killed = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const kill = () => {
      killed = true;
      child.kill("SIGKILL");
    };
    const stop = () => {
      try {
        if (status.initPid === undefined) return kill();
        process.kill(-status.initPid, "SIGTERM");
      } catch {
        // The sandbox has ended already.
      }
    };
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      signal.removeEventListener("abort", aborted);
      outcome();
    };
    const aborted = () => {
      kill();
      settle(() => reject(signal.reason));
    };
    signal.addEventListener("abort", aborted, { once: true });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
        timers.push(setTimeout(kill, KILL_GRACE_MS));
      }, timeoutMs),
    );
    child.once("error", (error) => settle(() => reject(new Error(`The command's sandbox did not start (${error.message}); nothing ran.`))));
    child.once("close", (code, killedBy) =>
      settle(() => {
        const output = { stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated, timedOut };
        const { exitCode } = status;
        if (exitCode !== undefined)
          return resolve(timedOut && exitCode === ENDED_BY_SIGTERM ? { exitCode: null, signal: "SIGTERM", ...output } : { exitCode, ...output });
        if (killed) return resolve({ exitCode: null, signal: "SIGKILL", ...output });
        reject(new Error(`The command's sandbox did not start (bwrap ended with ${code ?? killedBy}: ${stderr.text().trim()}); nothing ran.`));
      }),
    );
  });
}

export const runCommandTool = (sandbox: Sandbox, files: FileWorkerClient) =>
  defineTool({
    ...BUILTIN.runCommand,
    execute: ({ command, cwd = ".", timeoutMs }, ctx) => runSandboxed(sandbox, files, { command, cwd, timeoutMs }, ctx.signal),
  });
