import { SANDBOX_HOME } from "./environment";
import type { System } from "./system";

/** Where the sandbox's own programs are inside it, read-only. */
export const PROGRAMS_INSIDE = "/run/toolgate-sandbox";
/** Where the proxy's socket is inside a sandbox that may reach the named hosts. */
export const PROXY_SOCKET_INSIDE = "/run/toolgate-proxy.sock";

export type Layout = {
  system: System;
  /** The workspace: read-write, at its own real path, so paths inside and outside the sandbox match. */
  root: string;
  /** The bundled programs on the host. */
  programs: string;
  /** The proxy's socket on the host, bound in when the sandbox may reach the named hosts. */
  proxySocket?: string;
  /** Directories of this machine shown read-only at their own paths (a stdio server's program). */
  readOnly?: readonly string[];
  /** Directories covered by an empty one, wherever they lie (toolgate's data dir inside a directory shown). */
  hidden?: readonly string[];
  /** Where the first process starts: the workspace, or a directory in it. */
  cwd: string;
  /** The descriptor bwrap reports the sandbox's first process and the command's exit on. */
  statusFd?: number;
};

/**
 * bwrap's arguments for one sandbox: every namespace of its own (no network: only a loopback of its own), no
 * capabilities, killed with the process that started it; the system read-only, a private /tmp and HOME, the
 * workspace read-write, and nothing else of the machine. Mounts are made in this order, so the workspace and the
 * programs stay visible on top of the private /tmp. The environment is bwrap's own, given whole by the module
 * (never --setenv: arguments are visible to every user of the machine).
 */
export function bwrapArguments({ system, root, programs, proxySocket, readOnly = [], hidden = [], cwd, statusFd }: Layout): string[] {
  return [
    "--unshare-all",
    "--unshare-user",
    ...(system.disablesUserNamespaces ? ["--disable-userns"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop", "ALL",
    ...system.mounts,
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/tmp",
    "--dir", SANDBOX_HOME,
    "--ro-bind", programs, PROGRAMS_INSIDE,
    ...(proxySocket ? ["--ro-bind", proxySocket, PROXY_SOCKET_INSIDE] : []),
    "--bind", root, root,
    ...readOnly.flatMap((path) => ["--ro-bind", path, path]),
    ...hidden.flatMap((path) => ["--tmpfs", path]),
    "--chdir", cwd,
    ...(statusFd === undefined ? [] : ["--json-status-fd", String(statusFd)]),
  ];
}
