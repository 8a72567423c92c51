import { fileURLToPath } from "node:url";
import { defineModule } from "@toolgate/module";
import type { Module, ModuleSpec } from "@toolgate/module";
import type { Workspace } from "./confine";
import { fileTools } from "./file-tools";
import { FileWorkerClient } from "./file-worker-client";
import { runCommandTool } from "./run-command";
import { runJavascriptRefusal } from "./run-javascript";
import { openSandbox } from "./sandbox";
import type { Sandbox } from "./sandbox";

export { confine, openWorkspace, PathRefused } from "./confine";
export type { Workspace } from "./confine";
export { SERVED_GROUPS, SERVED_TOOLS } from "./builtin";
export { SandboxUnavailable } from "./sandbox";

/** The module's own program inside the sandbox: the file operations' worker. */
const PROGRAMS = { "file-worker": fileURLToPath(new URL("./file-worker.ts", import.meta.url)) };

/** Where the module's tools run: a sandbox of its own for each command, and one for the file worker. */
export type WorkspaceSandbox = { sandbox: Sandbox; files: FileWorkerClient; close(): Promise<void> };

/**
 * Opens the sandbox on the workspace and starts the file worker in it; SandboxUnavailable, saying why and how to fix
 * it, when bubblewrap cannot run here. `allowedHosts`: what commands may reach through the proxy (none: no network).
 */
export async function openWorkspaceSandbox(workspace: Workspace, allowedHosts: readonly string[] = []): Promise<WorkspaceSandbox> {
  const sandbox = await openSandbox({ root: workspace.root, allowedHosts, programs: PROGRAMS });
  const files = new FileWorkerClient(sandbox);
  const close = async () => {
    files.close();
    await sandbox.close();
  };
  await files.start().catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { sandbox, files, close };
}

export type WorkspaceModuleOptions = {
  workspace: Workspace;
  /** Where the tools run (openWorkspaceSandbox). */
  sandbox: WorkspaceSandbox;
  /** The module's URL as toolgate calls it (the executor's url), which toolgate's call tokens are issued for. */
  url: string;
  /** Where toolgate is, for the keys its calls are signed with; or the keys themselves (tests). */
  toolgate: NonNullable<ModuleSpec["toolgate"]>;
};

/**
 * The built-in workspace and command tools, run on one directory of this machine: the same names, descriptions and
 * parameters toolgate lists, each run inside the sandbox, each path confined to the directory by the module itself as
 * well, whatever toolgate's own rules say. Only calls toolgate signed run.
 */
export function workspaceModule({ workspace, sandbox, url, toolgate }: WorkspaceModuleOptions): Module {
  return defineModule({
    id: "workspace",
    description: `The workspace and command tools on the directory ${workspace.root}.`,
    tools: [...fileTools(sandbox.files), runCommandTool(sandbox.sandbox, sandbox.files), runJavascriptRefusal()],
    toolgate,
    url,
  });
}
