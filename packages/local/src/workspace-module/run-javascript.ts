import { defineTool } from "@toolgate/module";
import { BUILTIN } from "./builtin";

/**
 * The `command` group's other tool, which the module does not run: it has no sandbox for JavaScript, and a script
 * run as a plain process is what run_command already does, in the open. Answered with a refusal the agent can act
 * on, rather than an unknown tool (which toolgate would report as a failed executor).
 */
export const runJavascriptRefusal = () =>
  defineTool({
    ...BUILTIN.runJavascript,
    execute: () => {
      throw new Error(
        "The workspace module does not run run_javascript: it has no sandbox for JavaScript. Run a script with run_command instead (e.g. node -e '...'), where the command rules apply.",
      );
    },
  });
