import type { PolicyInput } from "./schema";

const WORKSPACE_TOOLS = ["read_file", "write_file", "list_files", "run_command"];
const ALLOWED_COMMANDS = ["ls", "cat", "grep", "find", "git", "npm", "yarn", "node", "python", "pip"];
const TEN_MIB = 10 * 1024 * 1024;

/**
 * Conditions joined by ||, as a balanced tree: Cedar evaluates `a || b || c ...` recursively along the chain, and a
 * chain of about a hundred overflows its stack (the policy then fails closed on every call it covers).
 */
function anyOf(conditions: readonly string[]): string {
  if (conditions.length <= 4) return conditions.join(" || ");
  const half = Math.ceil(conditions.length / 2);
  return `(${anyOf(conditions.slice(0, half))}) ||\n  (${anyOf(conditions.slice(half))})`;
}

/** rm with a recursive flag, however spelled, at the start of a simple command, by name or by path (/bin/rm), or after sudo and the like. */
const RECURSIVE = ["-rf", "-fr", "-Rf", "-fR", "-rF", "-Fr", "-r", "-R", "-r -f", "-f -r", "-R -f", "-f -R", "--recursive", "--recursive --force", "--force --recursive", "-rf --no-preserve-root", "--no-preserve-root -rf"];
const WIPES = RECURSIVE.flatMap((flags) => [`*rm ${flags} /*`, `*rm ${flags} ~*`]);

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
      description:
        "run_command never runs rm with a recursive flag on an absolute or home path (by name, by path or after sudo; flags in the usual spellings and orders before the path), mkfs, dd if=, or a fork bomb. Patterns cannot catch every spelling: the command allowlist is the stronger guard.",
      cedar: `@reason("Commands that delete recursively from the root of the file system or a home directory, format a disk, copy raw devices or fork without end are never run")
forbid (principal, action == Action::"run_command", resource)
when {
  ${anyOf([
    ...WIPES.map((pattern) => `context.command like "${pattern}"`),
    'context.command like "*mkfs*"',
    'context.command like "dd if=*"',
    'context.command like "* dd if=*"',
    'context.command like "*/dd if=*"',
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
