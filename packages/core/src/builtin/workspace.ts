import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import { WorkspacePath } from "./fields";
import type { BuiltinGroup } from "./group";

export const readFile = {
  name: "read_file",
  description:
    "Read a text file from the workspace. Returns the requested lines of the file with the total line count and whether the output was cut short; read a long file in pieces with offset and limit.",
  parameters: z.strictObject({
    path: WorkspacePath.describe("Path of the file, relative to the workspace root."),
    offset: z.number().int().min(1).optional().describe("1-based line number to start reading from; omit to start at the first line."),
    limit: z.number().int().min(1).max(10_000).default(2000).describe("Maximum number of lines to return."),
  }),
  policy: { pathArguments: ["path"] },
} satisfies ToolDescription;

export const writeFile = {
  name: "write_file",
  description:
    "Create a file in the workspace or overwrite it completely with the given content. Returns the path and the number of bytes written. To change part of a file, read it first and write back the full new content.",
  parameters: z.strictObject({
    path: WorkspacePath.describe("Path of the file, relative to the workspace root. Missing parent directories are created."),
    content: z.string().max(1_000_000).describe("The complete new content of the file (replaces any existing content)."),
  }),
  policy: { pathArguments: ["path"] },
} satisfies ToolDescription;

export const listFiles = {
  name: "list_files",
  description:
    "List files and directories in the workspace. Returns entries with path, type (file or directory), size and modification time. Use recursive and pattern (a glob) to find files across subdirectories.",
  parameters: z.strictObject({
    path: WorkspacePath.default(".").describe("Directory to list, relative to the workspace root."),
    recursive: z.boolean().default(false).describe("Also list the contents of subdirectories."),
    pattern: z.string().min(1).max(256).optional().describe("Optional glob that entry paths must match, e.g. \"**/*.ts\"."),
  }),
  policy: { pathArguments: ["path"] },
} satisfies ToolDescription;

export const getWorkspaceInfo = {
  name: "get_workspace_info",
  description:
    "Describe the agent's workspace. Returns its root path and summary facts about it, such as the number of files and their total size. Use it to orient yourself before working with files or running commands.",
  parameters: z.strictObject({}),
} satisfies ToolDescription;

export const workspaceGroup: BuiltinGroup<"workspace"> = {
  id: "workspace",
  description: "Read, write and list files in the agent's workspace.",
  executor: { type: "client" },
  tools: [readFile, writeFile, listFiles, getWorkspaceInfo].map(describeTool),
};
