import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import { WorkspacePath } from "./fields";
import type { BuiltinGroup } from "./group";

export const runCommand = {
  name: "run_command",
  description:
    "Run a shell command in the workspace and wait for it to finish. Returns { exitCode, stdout, stderr }, with long output truncated; a command that outlives timeoutMs is killed. Use it to build, test, search or run tools; it is not interactive, so pass flags that avoid prompts.",
  parameters: z.strictObject({
    command: z.string().min(1).max(10_000).describe("The shell command line to run, e.g. \"npm test -- --run\"."),
    cwd: WorkspacePath.optional().describe("Working directory relative to the workspace root; omit to run in the workspace root."),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .default(30_000)
      .describe("Kill the command if it is still running after this many milliseconds."),
  }),
  policy: { commandArguments: ["command"], pathArguments: ["cwd"], rateLimit: { perMinute: 60, perHour: 1200 } },
} satisfies ToolDescription;

export const runJavascript = {
  name: "run_javascript",
  description:
    "Run JavaScript code in a sandbox and return its result. The code is the body of an async function: `await` works and the value you `return` comes back as JSON together with anything printed with console.log. Use it for calculations and data transformations.",
  parameters: z.strictObject({
    code: z
      .string()
      .min(1)
      .max(100_000)
      .describe("JavaScript run as the body of an async function: `await` is allowed and `return` gives the result."),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(120_000)
      .default(10_000)
      .describe("Abort the script if it is still running after this many milliseconds."),
  }),
  policy: { rateLimit: { perMinute: 30, perHour: 600 } },
} satisfies ToolDescription;

export const commandGroup: BuiltinGroup<"command"> = {
  id: "command",
  description: "Run shell commands and JavaScript code in the agent's runtime.",
  executor: { type: "client" },
  tools: [runCommand, runJavascript].map(describeTool),
};
