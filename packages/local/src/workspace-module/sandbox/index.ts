import { spawn } from "node:child_process";
import type { ChildProcess, StdioOptions } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bwrapArguments, PROGRAMS_INSIDE, PROXY_SOCKET_INSIDE } from "./arguments";
import { closeInheritedDescriptors } from "./descriptors";
import { ownVariables, proxyVariables, sandboxEnvironment } from "./environment";
import { bundlePrograms } from "./programs";
import { startProxy } from "./proxy";
import type { Proxy } from "./proxy";
import { readSystem } from "./system";
import { bwrapFailed, bwrapMissing } from "./unavailable";

export { SandboxUnavailable } from "./unavailable";
export { followStatus } from "./status";

const SHELL = "/bin/sh";
/** The port on a sandbox's own loopback where the bridge passes TCP to the proxy's socket. */
const BRIDGE_PORT = 3128;
const CHECK_TIMEOUT_MS = 20_000;
const BRIDGE = fileURLToPath(new URL("./bridge.ts", import.meta.url));

/** The bridge from a TCP port on a sandbox's own loopback to the proxy's socket, bound into it. */
export type Bridge = { port: number; socket: string };

export type SpawnOptions = {
  /** The directory the first process starts in, inside the workspace; the workspace's root if not given. */
  cwd?: string;
  /** Bind the proxy in and point the proxy variables at it (when hosts are allowed). */
  network: boolean;
  /** The descriptor, among `stdio`, bwrap reports on (--json-status-fd): see followStatus. */
  statusFd?: number;
  stdio: StdioOptions;
};

/** How a program starts in the sandbox (its first process's command line and environment), for a spawner of its own. */
export type SandboxCommand = { file: string; args: string[]; env: Record<string, string> };

/** `environment`: the program's own variables in place of the module's (the sandbox's PATH, HOME and proxies still set). */
export type CommandOptions = Omit<SpawnOptions, "stdio"> & { environment?: Record<string, string> };

export type Sandbox = {
  readonly root: string;
  /** What runs a shell line inside: /bin/sh -c, behind the bridge to the proxy when hosts are allowed. */
  shell(line: string): string[];
  /** What runs one of the bundled programs inside. */
  program(name: string, args: string[]): string[];
  /** Starts `command` (a path inside the sandbox and its arguments) in a sandbox of its own. */
  spawn(command: string[], options: SpawnOptions): ChildProcess;
  /** What `spawn` would run, for a spawner of its own (a stdio MCP client). */
  command(command: string[], options: CommandOptions): SandboxCommand;
  close(): Promise<void>;
};

export type SandboxOptions = {
  /** The workspace's real path. */
  root: string;
  /** Hosts sandboxed commands may reach through the proxy; none: no network at all. */
  allowedHosts: readonly string[];
  /** The programs that run inside, by name: their entry files, bundled at start. */
  programs: Record<string, string>;
  /** Directories shown read-only, and directories hidden under an empty one (see Layout). */
  readOnly?: readonly string[];
  hidden?: readonly string[];
  /** HOME inside: a directory of the workspace (kept), else an empty one on the private /tmp. */
  home?: string;
};

/** bwrap on PATH, as a shell finds it. */
function findBwrap(): string | undefined {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return (process.env.PATH ?? "")
    .split(":")
    .filter(Boolean)
    .map((dir) => join(dir, "bwrap"))
    .find(executable);
}

/** Runs `/bin/sh -c true` in a sandbox: bwrap is there, makes its namespaces and mounts, and a command runs inside. */
function check(sandbox: Sandbox): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = sandbox.spawn([SHELL, "-c", "true"], { network: true, stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHECK_TIMEOUT_MS);
    let said = "";
    child.stderr!.on("data", (chunk: Buffer) => (said += chunk));
    child.once("error", (error) => reject(bwrapFailed(error.message)));
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(bwrapFailed(said || `it ended with ${code ?? signal}`));
    });
  });
}

/**
 * The sandbox the workspace's commands and file operations run in, checked to work before anything runs: its
 * programs bundled into a temporary directory, and the proxy to the allowed hosts, if any.
 */
export async function openSandbox({ root, allowedHosts, programs, readOnly = [], hidden = [], home }: SandboxOptions): Promise<Sandbox> {
  const bwrap = findBwrap();
  if (!bwrap) throw bwrapMissing();
  closeInheritedDescriptors();
  const system = readSystem(bwrap);
  const dir = await mkdtemp(join(tmpdir(), "toolgate-sandbox-"));
  const programsDir = join(dir, "programs");
  const proxySocket = join(dir, "proxy.sock");
  let proxy: Proxy | undefined;
  const close = async () => {
    await proxy?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await bundlePrograms({ ...programs, bridge: BRIDGE }, programsDir);
    if (allowedHosts.length > 0) proxy = await startProxy(proxySocket, allowedHosts);
    const program = (name: string, args: string[]) => [system.node, join(PROGRAMS_INSIDE, `${name}.cjs`), ...args];
    const bridge: Bridge = { port: BRIDGE_PORT, socket: PROXY_SOCKET_INSIDE };
    const sandbox: Sandbox = {
      root,
      shell: (line) => (proxy ? program("bridge", [JSON.stringify(bridge), line]) : [SHELL, "-c", line]),
      program,
      command: (command, { cwd = root, network, statusFd, environment }) => {
        const proxied = network && proxy !== undefined;
        const own = environment ? { ...environment, ...ownVariables(system.path) } : sandboxEnvironment(process.env, system.path);
        const env = { ...own, ...(home ? { HOME: home } : {}), ...(proxied ? proxyVariables(`http://127.0.0.1:${BRIDGE_PORT}`) : {}) };
        const layout = { system, root, programs: programsDir, ...(proxied ? { proxySocket } : {}), readOnly, hidden, cwd, ...(statusFd === undefined ? {} : { statusFd }) };
        return { file: bwrap, args: [...bwrapArguments(layout), "--", ...command], env };
      },
      spawn: (command, { stdio, ...options }) => {
        const { file, args, env } = sandbox.command(command, options);
        return spawn(file, args, { env, stdio });
      },
      close,
    };
    await check(sandbox);
    return sandbox;
  } catch (error) {
    await close();
    throw error;
  }
}
