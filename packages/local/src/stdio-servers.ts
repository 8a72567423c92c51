import { mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostStdioServers, loadStdio } from "@toolgate/core/executor";
import type { Executor, SandboxedCommand, StdioHost, StdioLaunch } from "@toolgate/core/executor";
import { inside } from "./workspace-module/confine";
import { openSandbox } from "./workspace-module/sandbox/index";

/** Where stdio servers' own directories are kept by default: the user's cache, apart from toolgate's data dir. */
export const defaultStdioDir = (env: NodeJS.ProcessEnv = process.env) => resolve(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolgate", "stdio");

/** A line of a program's quoted for /bin/sh: each word in single quotes, so nothing in it is read by the shell. */
const quoted = (words: string[]) => words.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");

export type StdioServersOptions = {
  /** toolgate's data dir: never shown to a program, hidden even inside a directory a group shows. Undefined in memory. */
  dataDir: string | undefined;
  /** Where each group's directory is made (its HOME and, without `cwd`, where it starts); a temporary one in memory. */
  stdioDir: string | undefined;
  log: (line: string) => void;
};

export type StdioServers = {
  /** Stops the group's process unless its group still names the same executor (after group.changed). */
  retire(groupId: string, executor: Executor | undefined): Promise<void>;
  stop(): Promise<void>;
};

async function checkedCwd(cwd: string, dataDir: string | undefined): Promise<string> {
  const real = await realpath(cwd).catch(() => {
    throw new Error(`its cwd ${cwd} does not exist on this machine`);
  });
  if (!(await stat(real)).isDirectory()) throw new Error(`its cwd ${cwd} is not a directory`);
  if (dataDir && inside(dataDir, real)) throw new Error(`its cwd ${cwd} lies inside toolgate's data dir, which no program may see`);
  return real;
}

/**
 * Lends toolgate's stdio executor a sandbox for each group's program: the workspace module's bubblewrap sandbox with
 * the group's own directory (<stdioDir>/<group>) as its read-write root, HOME and working directory, the executor's
 * `cwd` shown read-only (and the program started there), toolgate's data dir hidden wherever it lies, no network or
 * a proxy to the executor's `allowHosts` only, and the executor's `env` as the whole of the program's environment
 * besides the sandbox's own PATH, HOME, TMPDIR, LANG and TERM. Each standard error line goes to the log, tagged with
 * the group.
 */
export async function startStdioServers({ dataDir, stdioDir, log }: StdioServersOptions): Promise<StdioServers> {
  const temporary = stdioDir === undefined;
  const dir = stdioDir ?? (await mkdtemp(join(tmpdir(), "toolgate-stdio-")));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const realDataDir = dataDir && (await realpath(dataDir).catch(() => dataDir));
  if (realDataDir && inside(realDataDir, await realpath(dir)))
    throw new Error(`TOOLGATE_STDIO_DIR (${dir}) lies inside toolgate's data dir (${realDataDir}); stdio servers' directories must lie outside it.`);

  async function sandboxed({ group, executor, env }: StdioLaunch): Promise<SandboxedCommand> {
    const root = join(dir, group);
    await mkdir(root, { recursive: true, mode: 0o700 });
    const cwd = executor.cwd === undefined ? undefined : await checkedCwd(executor.cwd, realDataDir);
    const hidden = realDataDir && cwd && inside(cwd, realDataDir) ? [realDataDir] : [];
    const allowedHosts = executor.allowHosts ?? [];
    const sandbox = await openSandbox({ root, allowedHosts, programs: {}, readOnly: cwd ? [cwd] : [], hidden, home: root });
    const line = `exec ${quoted([executor.command, ...(executor.args ?? [])])}`;
    const { file, args, env: whole } = sandbox.command(sandbox.shell(line), { cwd: cwd ?? root, network: allowedHosts.length > 0, environment: env });
    return { command: file, args, env: whole, release: () => sandbox.close() };
  }

  const host: StdioHost = {
    sandboxed,
    stderr: (group, line) => log(JSON.stringify({ level: "INFO", message: line, service: "stdio", group })),
  };
  hostStdioServers(host);
  return {
    async retire(groupId, executor) {
      await (await loadStdio()).stopStdioServer(groupId, executor?.type === "stdio" ? executor : undefined);
    },
    async stop() {
      hostStdioServers(undefined);
      await (await loadStdio()).stopStdioServers();
      if (temporary) await rm(dir, { recursive: true, force: true });
    },
  };
}
