import { defineTool } from "@toolgate/module";
import { BUILTIN } from "./builtin";

/**
 * The `command` group's other tool, which the module does not run: a script is what run_command already runs, in the
 * same sandbox, where toolgate's command rules see it. Answered with a refusal the agent can act on, rather than an
 * unknown tool (which toolgate would report as a failed executor).
 */
export const runJavascriptRefusal = () =>
  defineTool({
    ...BUILTIN.runJavascript,
    execute: () => {
      throw new Error(
        "The workspace module does not run run_javascript. Run a script with run_command instead (e.g. node -e '...'): it runs in the module's sandbox, where the command rules apply.",
      );
    },
  });
