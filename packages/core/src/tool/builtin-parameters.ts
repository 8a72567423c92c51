import * as z from "zod";
import { AskUserArguments } from "../question/schema";

const RoleId = z.string().min(1).max(128);
const AgentId = z.string().min(1).max(128);
const AgentName = z.string().min(1).max(100);
const WorkspacePath = z.string().min(1).max(4096);
const LongText = z.string().min(1).max(20_000);

/** The built-in tools' parameters, built on first use rather than when a function starts. */
const buildParameters = () => ({
  find_role_by_name: z.strictObject({
    name: z.string().min(1).max(100).describe("Exact name of the role to look up, e.g. \"frontend developer\"."),
  }),
  create_role: z.strictObject({
    name: z.string().min(1).max(100).describe("Unique, human-readable role name, e.g. \"data analyst\"."),
    rolePrompt: LongText.describe(
      "System prompt every agent of this role receives: its responsibilities, how it should work and what it must hand back.",
    ),
    toolGroups: z
      .array(z.string().min(1).max(64).describe("A tool group id, e.g. \"workspace\"."))
      .max(64)
      .optional()
      .describe(
        "Ids of the tool groups the role's agents may use. List only the groups the role's work needs; omitting this field gives the role every group, including ones registered later.",
      ),
  }),
  spawn_agent: z.strictObject({
    roleId: RoleId.describe("Id of the role the new agent takes (from find_role_by_name or create_role)."),
    name: AgentName.optional().describe("Optional display name for the new agent, e.g. \"reviewer-1\"."),
  }),
  spawn_agent_with_task: z.strictObject({
    roleId: RoleId.describe("Id of the role the new agent takes (from find_role_by_name or create_role)."),
    task: LongText.describe(
      "The task for the new agent, written so it can act on it alone: goal, inputs, constraints and what to report back.",
    ),
    name: AgentName.optional().describe("Optional display name for the new agent, e.g. \"reviewer-1\"."),
  }),
  terminate_agent: z.strictObject({
    agentId: AgentId.describe("Id of the agent to terminate (as returned by spawn_agent or spawn_agent_with_task)."),
  }),
  send_message: z.strictObject({
    to: AgentId.describe("Id of the agent that receives the message."),
    content: LongText.describe("The message text."),
  }),
  put_artifact: z.strictObject({
    content: z
      .string()
      .min(1)
      .max(100_000)
      .describe("The artifact's content as text (serialise JSON or other structured data to a string first)."),
    name: z.string().min(1).max(200).optional().describe("Optional human-readable name, e.g. \"design-notes.md\"."),
    mimeType: z
      .string()
      .max(255)
      .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;.*)?$/)
      .default("text/plain")
      .describe("Media type of the content, e.g. \"text/markdown\" or \"application/json\"."),
  }),
  get_artifact: z.strictObject({
    artifactId: z.string().min(1).max(128).describe("Id of the artifact, as returned by put_artifact."),
  }),
  read_file: z.strictObject({
    path: WorkspacePath.describe("Path of the file, relative to the workspace root."),
    offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("1-based line number to start reading from; omit to start at the first line."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(2000)
      .describe("Maximum number of lines to return."),
  }),
  write_file: z.strictObject({
    path: WorkspacePath.describe(
      "Path of the file, relative to the workspace root. Missing parent directories are created.",
    ),
    content: z.string().max(1_000_000).describe("The complete new content of the file (replaces any existing content)."),
  }),
  list_files: z.strictObject({
    path: WorkspacePath.default(".").describe("Directory to list, relative to the workspace root."),
    recursive: z.boolean().default(false).describe("Also list the contents of subdirectories."),
    pattern: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("Optional glob that entry paths must match, e.g. \"**/*.ts\"."),
  }),
  get_workspace_info: z.strictObject({}),
  run_command: z.strictObject({
    command: z.string().min(1).max(10_000).describe("The shell command line to run, e.g. \"npm test -- --run\"."),
    cwd: WorkspacePath.optional().describe(
      "Working directory relative to the workspace root; omit to run in the workspace root.",
    ),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .default(30_000)
      .describe("Kill the command if it is still running after this many milliseconds."),
  }),
  run_javascript: z.strictObject({
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
  http_request: z.strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .regex(/^https?:\/\/[^\s/?#]+\S*$/)
      .max(8192)
      .describe("Absolute http:// or https:// URL, including any query string."),
    method: z
      .enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
      .default("GET")
      .describe("HTTP method."),
    headers: z
      .record(z.string().min(1).max(256), z.string().max(8192))
      .optional()
      .describe("Request headers as name/value pairs, e.g. {\"Content-Type\": \"application/json\"}."),
    body: z
      .string()
      .max(1_000_000)
      .optional()
      .describe("Raw request body; serialise JSON yourself and set a matching Content-Type header."),
  }),
  compress_context: z.strictObject({
    summary: LongText.describe(
      "Your summary of the conversation so far that replaces the older messages: the goal, decisions made, facts and ids you still need, work done and what remains.",
    ),
    keepRecentMessages: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(10)
      .describe("How many of the most recent messages to keep verbatim after the summary."),
  }),
  get_context_status: z.strictObject({}),
  console_print: z.strictObject({
    message: z.string().min(1).max(10_000).describe("Text to print to the operator's console."),
    level: z.enum(["debug", "info", "warn", "error"]).default("info").describe("Severity of the message."),
  }),
  ask_user: AskUserArguments,
}) satisfies Record<string, z.ZodObject>;

type Parameters = ReturnType<typeof buildParameters>;
let built: Parameters | undefined;

export const builtinParameters = (): Parameters => (built ??= buildParameters());

export type BuiltinToolName = keyof Parameters;
export type BuiltinArguments<Name extends BuiltinToolName> = z.output<Parameters[Name]>;
