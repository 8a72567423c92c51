import type { StdioExecutor } from "./schema";

/** One stdio server's process as it is started: its group, its executor, and its environment with the secrets read. */
export type StdioLaunch = { group: string; executor: StdioExecutor; env: Record<string, string> };

/**
 * The command line that starts the program inside its sandbox (bwrap and its arguments, the program last), its whole
 * environment (passed to the process, never as arguments), and what to release once the process has ended.
 */
export type SandboxedCommand = { command: string; args: string[]; env: Record<string, string>; release(): Promise<void> };

/**
 * What a runtime that runs programs lends the stdio executor (`npm start`'s: packages/local/src/stdio-servers.ts): how
 * a group's program starts inside its sandbox, and where each line of its standard error goes. A process without one
 * has no place to run stdio servers (a deployment on AWS), so their groups are refused there.
 */
export type StdioHost = {
  sandboxed(launch: StdioLaunch): Promise<SandboxedCommand>;
  stderr(group: string, line: string): void;
};

let lent: StdioHost | undefined;

/** Lends this process a way to run stdio servers (or takes it back with undefined). */
export function hostStdioServers(host: StdioHost | undefined) {
  lent = host;
}

export const stdioHost = () => lent;
