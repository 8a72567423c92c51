import { builtinGroups } from "@toolgate/core/group";
import { builtinParameters } from "@toolgate/core/tool";

/** The built-in groups whose tools the module runs, each bound to it as its executor. */
export const SERVED_GROUPS = ["workspace", "command"] as const;

/** The built-in tools the module serves: the `workspace` group's and `run_command` of the `command` group. */
export const SERVED_TOOLS = ["read_file", "write_file", "list_files", "get_workspace_info", "run_command"] as const;
/** The tools of the groups bound to the module: `run_javascript` (the `command` group's too) is answered with a refusal. */
type BoundTool = (typeof SERVED_TOOLS)[number] | "run_javascript";

/**
 * A built-in tool as toolgate defines it: its name, description, zod parameters and policy. The one place the module
 * reads toolgate's built-in definitions, so the tools it serves are exactly the ones toolgate lists.
 */
export function builtinTool<Name extends BoundTool>(name: Name) {
  const definition = builtinGroups()
    .flatMap((group) => group.tools)
    .find((tool) => tool.function.name === name);
  if (!definition) throw new Error(`toolgate has no built-in tool ${name}.`);
  return { name, description: definition.function.description, parameters: builtinParameters()[name], policy: definition["x-toolgate"] };
}
