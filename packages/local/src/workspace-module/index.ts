import { defineModule } from "@toolgate/module";
import type { Module, ModuleSpec } from "@toolgate/module";
import type { Workspace } from "./confine";
import { listFilesTool } from "./list-files";
import { readFileTool } from "./read-file";
import { runCommandTool } from "./run-command";
import { runJavascriptRefusal } from "./run-javascript";
import { workspaceInfoTool } from "./workspace-info";
import { writeFileTool } from "./write-file";

export { confine, openWorkspace, PathRefused } from "./confine";
export type { Workspace } from "./confine";
export { SERVED_GROUPS, SERVED_TOOLS } from "./builtin";

export type WorkspaceModuleOptions = {
  workspace: Workspace;
  /** The module's URL as toolgate calls it (the executor's url), which toolgate's call tokens are issued for. */
  url: string;
  /** Where toolgate is, for the keys its calls are signed with; or the keys themselves (tests). */
  toolgate: NonNullable<ModuleSpec["toolgate"]>;
};

/**
 * The built-in workspace and command tools, run on one directory of this machine: the same names, descriptions and
 * parameters toolgate lists, each path confined to the directory by the module itself, whatever toolgate's own rules
 * say. Only calls toolgate signed run.
 */
export function workspaceModule({ workspace, url, toolgate }: WorkspaceModuleOptions): Module {
  return defineModule({
    id: "workspace",
    description: `The workspace and command tools on the directory ${workspace.root}.`,
    tools: [readFileTool(workspace), writeFileTool(workspace), listFilesTool(workspace), workspaceInfoTool(workspace), runCommandTool(workspace), runJavascriptRefusal()],
    toolgate,
    url,
  });
}
