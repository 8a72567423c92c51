import { defineTool } from "@toolgate/module";
import type { ToolDescription, ToolOutput } from "@toolgate/module";
import { BUILTIN } from "./builtin";
import type { FileToolName } from "./file-worker";
import type { FileWorkerClient } from "./file-worker-client";

const FILE_TOOLS = {
  read_file: BUILTIN.readFile,
  write_file: BUILTIN.writeFile,
  list_files: BUILTIN.listFiles,
  get_workspace_info: BUILTIN.getWorkspaceInfo,
} satisfies Record<FileToolName, ToolDescription>;

/** The workspace group's tools, each run by the file worker inside the sandbox. */
export const fileTools = (files: FileWorkerClient) =>
  (Object.keys(FILE_TOOLS) as FileToolName[]).map((name) =>
    defineTool({ ...FILE_TOOLS[name], execute: (input, ctx) => files.call(name, input, ctx.signal) as Promise<ToolOutput> }),
  );
