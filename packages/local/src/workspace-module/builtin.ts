import { getWorkspaceInfo, listFiles, readFile, runCommand, runJavascript, writeFile } from "@toolgate/core/builtin";

/** The built-in groups whose tools the module runs, each bound to it as its executor. */
export const SERVED_GROUPS = ["workspace", "command"] as const;

/**
 * The built-in tools of those groups as toolgate describes them (name, description, zod parameters, policy): the one
 * place the module reads toolgate's built-in definitions, so the tools it serves are exactly the ones toolgate lists.
 * `run_javascript` (the `command` group's too) is answered with a refusal.
 */
export const BUILTIN = { readFile, writeFile, listFiles, getWorkspaceInfo, runCommand, runJavascript };

/** The built-in tools the module serves: the `workspace` group's and `run_command` of the `command` group. */
export const SERVED_TOOLS = [readFile, writeFile, listFiles, getWorkspaceInfo, runCommand].map((tool) => tool.name);
