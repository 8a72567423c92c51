import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";

/** A process's command line with its arguments joined by spaces; "" when there is no such process. */
export async function commandLineOf(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter(Boolean).join(" ");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && (await hasProcFs())) return "";
    return commandLineFromPs(pid);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let procFs: Promise<boolean> | undefined;
const hasProcFs = () => (procFs ??= readFile("/proc/self/cmdline").then(() => true, () => false));

const commandLineFromPs = (pid: number) =>
  new Promise<string>((done) => execFile("ps", ["-o", "command=", "-p", String(pid)], (error, stdout) => done(error ? "" : stdout.trim())));
