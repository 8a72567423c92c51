import type { PolicyInput } from "./schema";

const WORKSPACE_TOOLS = ["read_file", "write_file", "list_files", "run_command"];
const ALLOWED_COMMANDS = ["ls", "cat", "grep", "find", "git", "npm", "yarn", "node", "python", "pip"];
const TEN_MIB = 10 * 1024 * 1024;

const anyOf = (conditions: string[]) => conditions.join(" ||\n  ");

/** The policies toolgate ships in the system layer: listed and editable like any other, written once (a deleted one stays deleted). */
export const SHIPPED_POLICIES: ReadonlyArray<{ id: string; input: PolicyInput }> = [
  {
    id: "workspace-paths",
    input: {
      scope: "system",
      mode: "enforce",
      description: "The workspace tools may not reach outside the workspace root, where one is set (on the role or the agent).",
      cedar: `@reason("Paths must stay inside the workspace root")
@recoverable("true")
forbid (principal, action in [${WORKSPACE_TOOLS.map((tool) => `Action::"${tool}"`).join(", ")}], resource)
when { context.outsideWorkspace };`,
    },
  },
  {
    id: "dangerous-commands",
    input: {
      scope: "system",
      mode: "enforce",
      description: "run_command never runs a command that wipes the file system, formats a disk, writes a raw device or forks without end.",
      cedar: `@reason("Commands that delete from the root of the file system, format a disk, copy raw devices or fork without end are never run")
forbid (principal, action == Action::"run_command", resource)
when {
  ${anyOf([
    'context.command like "rm -rf /*"',
    'context.command like "* rm -rf /*"',
    'context.command like "rm -fr /*"',
    'context.command like "* rm -fr /*"',
    'context.command like "mkfs*"',
    'context.command like "* mkfs*"',
    'context.command like "dd if=*"',
    'context.command like "* dd if=*"',
    'context.input.command like "*:(){*}*"',
  ])}
};`,
    },
  },
  {
    id: "write-size",
    input: {
      scope: "system",
      mode: "enforce",
      description: "write_file writes at most 10 MiB.",
      cedar: `@reason("A file written at once may hold at most 10 MiB")
@recoverable("true")
forbid (principal, action == Action::"write_file", resource)
when { context.largestStringBytes > ${TEN_MIB} };`,
    },
  },
  {
    id: "command-allowlist",
    input: {
      scope: "system",
      mode: "log_only",
      description: `Switch to enforce to make run_command ask an operator before anything but ${ALLOWED_COMMANDS.join(", ")}. Log-only until then: calls record what it would have done.`,
      cedar: `@effect("ask")
@reason("Only ${ALLOWED_COMMANDS.join(", ")} run without an operator's approval")
permit (principal, action == Action::"run_command", resource)
unless {
  ${anyOf(ALLOWED_COMMANDS.flatMap((command) => [`context.command == "${command}"`, `context.command like "${command} *"`]))}
};`,
    },
  },
];
