import type { PolicyInput } from "./schema";

const WORKSPACE_TOOLS = ["read_file", "write_file", "list_files", "run_command"];
const ALLOWED_COMMANDS = ["ls", "cat", "grep", "find", "git", "npm", "yarn", "node", "python", "pip"];
const TEN_MIB = 10 * 1024 * 1024;

/** `--recursive` and every abbreviation of it rm accepts (no other option of rm starts with `--r`). */
const RECURSIVE = ["-r", "-R", ...Array.from({ length: "recursive".length }, (_, length) => `--${"recursive".slice(0, length + 1)}`)];
const FORMATS_A_DISK = ["mkfs*", "mke2fs*", "mkdosfs*", "mkntfs*", "mkexfatfs*", "mkswap*", "newfs*", "wipefs*"];

const strings = (values: readonly string[]) => `[${values.map((value) => JSON.stringify(value)).join(", ")}]`;

/**
 * A shipped policy, the edition of the shipped set it first came in, and the SHA-256 fingerprints (base64url) of the
 * texts and descriptions it shipped with before: a stored one still holding such a text is replaced, its description
 * too unless an operator changed it.
 */
export type ShippedPolicy = { id: string; input: PolicyInput; since: number; replaces?: { cedar: readonly string[]; descriptions: readonly string[] } };

/** The shipped set's edition: a table whose shipped policies are of an earlier one gets the new ones, and unedited ones updated. */
export const SHIPPED_EDITION = 2;

/** The policies toolgate ships in the system layer: listed and editable like any other, written once (a deleted one stays deleted). */
export const SHIPPED_POLICIES: readonly ShippedPolicy[] = [
  {
    id: "workspace-paths",
    since: 1,
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
    since: 1,
    replaces: { cedar: ["jO5MQwSXE8at5sA12k6ebA0OE14XUZnHXyJvIja-Kzc"], descriptions: ["MiHi_-lzqB0Qu2OUMqb4cbezXZDlHhjyA2JGJUnva90"] },
    input: {
      scope: "system",
      mode: "enforce",
      description:
        "run_command never runs, in any simple command however wrapped or spelled, rm with a recursive flag (in any spelling and order) on an absolute, home or variable path, a disk formatter (mkfs, mke2fs, mkfs.ext4…), dd with an if= or of= operand, or a fork bomb.",
      cedar: `@reason("Commands that delete recursively from the root of the file system, a home directory or a path known only when the line runs, format a disk, copy raw devices or fork without end are never run")
forbid (principal, action == Action::"run_command", resource)
when {
  (context.program == "rm" &&
    context.flags.containsAny(${strings(RECURSIVE)}) &&
    (context.command like "* /*" || context.command like "* ~*" || context.command like "* $*")) ||
  (${FORMATS_A_DISK.map((pattern) => `context.program like "${pattern}"`).join(" || ")}) ||
  (context.program == "dd" && (context.command like "* if=*" || context.command like "* of=*")) ||
  context.forkBomb
};`,
    },
  },
  {
    id: "write-size",
    since: 1,
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
    since: 1,
    replaces: { cedar: ["WwTD4Aj848lue7hvR7TrV670OD1yDrJl2p3OMgT8eAE"], descriptions: ["M8Q6CZfpKnooeINgrqlXz2VbTSuVt2qYCyOMaFJ3RCI"] },
    input: {
      scope: "system",
      mode: "log_only",
      description: `Switch to enforce to make run_command ask an operator before any program but ${ALLOWED_COMMANDS.join(", ")}, unless an allow rule names it (e.g. "make *"). Log-only until then: calls record what it would have done.`,
      cedar: `@effect("ask")
@unlessAllowed("true")
@reason("Only ${ALLOWED_COMMANDS.join(", ")} run without an operator's approval")
permit (principal, action == Action::"run_command", resource)
unless { ${strings(ALLOWED_COMMANDS)}.contains(context.program) };`,
    },
  },
  {
    id: "command-code-execution",
    since: 2,
    input: {
      scope: "system",
      mode: "enforce",
      description:
        "run_command asks an operator before a simple command that runs code written on the line (bash -c, node -e, eval, … | sh, git -c core.sshCommand=…, GIT_SSH_COMMAND=…) or whose program is known only when it runs ($cmd, $(…), arithmetic on a variable), unless an allow rule names it.",
      cedar: `@effect("ask")
@unlessAllowed("true")
@reason("A command that runs code written on the line, or whose program is known only when it runs, waits for an operator's approval")
permit (principal, action == Action::"run_command", resource)
when { context.codeExecution || context.dynamic };`,
    },
  },
  {
    id: "javascript-code",
    since: 2,
    input: {
      scope: "system",
      mode: "enforce",
      description:
        "run_javascript runs code in the agent's runtime, where toolgate cannot see what it does: it asks an operator, unless an allow rule names it (e.g. for one role).",
      cedar: `@effect("ask")
@unlessAllowed("true")
@reason("JavaScript runs in the agent's runtime, where toolgate cannot see what it does: an operator approves it")
permit (principal, action == Action::"run_javascript", resource);`,
    },
  },
];
