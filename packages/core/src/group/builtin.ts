import * as z from "zod";
import { builtinParameters, type BuiltinToolName } from "../tool/builtin-parameters";
import type { ToolDefinition } from "../tool/schema";
import type { ToolPolicy } from "../policy/schema";

export const RESERVED_GROUP_IDS = [
  "org_management",
  "artifact",
  "workspace",
  "command",
  "network",
  "context",
  "console",
] as const;

/** Built-in groups toolgate runs itself; the others run in the agent's runtime unless an admin binds an http executor. */
export const NATIVE_GROUP_IDS: readonly string[] = ["org_management", "artifact"];

export type ReservedGroupId = (typeof RESERVED_GROUP_IDS)[number];

const GROUPS: Record<ReservedGroupId, { description: string; tools: BuiltinToolName[] }> = {
  org_management: {
    description: "Organise the team: find and create roles, start and stop agents, and message them.",
    tools: [
      "find_role_by_name",
      "create_role",
      "spawn_agent",
      "spawn_agent_with_task",
      "terminate_agent",
      "send_message",
    ],
  },
  artifact: {
    description: "Store work products as artifacts and fetch them by id, so agents can share them.",
    tools: ["put_artifact", "get_artifact"],
  },
  workspace: {
    description: "Read, write and list files in the agent's workspace.",
    tools: ["read_file", "write_file", "list_files", "get_workspace_info"],
  },
  command: {
    description: "Run shell commands and JavaScript code in the agent's runtime.",
    tools: ["run_command", "run_javascript"],
  },
  network: {
    description: "Make HTTP requests to web servers and APIs.",
    tools: ["http_request"],
  },
  context: {
    description: "Inspect and shrink the agent's own conversation context.",
    tools: ["compress_context", "get_context_status"],
  },
  console: {
    description: "Talk to people: print messages to the operator's console, and ask a person a question.",
    tools: ["console_print", "ask_user"],
  },
};

const TOOL_DESCRIPTIONS: Record<BuiltinToolName, string> = {
  find_role_by_name:
    "Look up an existing role by its exact name. Returns the role as JSON (id, name, rolePrompt, toolGroups, status) or an error if no role has that name. Use it before create_role to reuse a role that already exists, and to get the roleId that spawn_agent needs.",
  create_role:
    "Create a new role that agents can be spawned into. Returns the new role as JSON, including its id. " +
    "Choose toolGroups deliberately: list only the tool groups the role's work needs (built-in groups are org_management, artifact, workspace, command, network, context and console; deployed modules may add more). " +
    "Omitting toolGroups gives the role every group, including ones registered later, so leave it out only when the role truly needs everything. " +
    "Fails if the name is already taken or a group id is unknown.",
  spawn_agent:
    "Start a new agent in the given role. Returns { agentId }. The agent waits idle until it receives a message, so follow up with send_message, or use spawn_agent_with_task to start it with work straight away.",
  spawn_agent_with_task:
    "Start a new agent in the given role and hand it a task. Returns { agentId }; the task arrives as the new agent's first message, so it starts working immediately. Prefer this over spawn_agent followed by send_message.",
  terminate_agent:
    "Terminate an agent you no longer need. It stops working and can make no further tool calls; this cannot be undone. Returns a confirmation, or an error if the agent does not exist.",
  send_message:
    "Send a text message to another agent, delivered to its inbox in order. Returns { messageId }. Use it to give an agent instructions, answer its questions or pass on results.",
  put_artifact:
    "Store a piece of content (a document, a report, data) as an artifact that other agents can read. Returns { artifactId }; pass that id to other agents instead of pasting large content into messages.",
  get_artifact:
    "Fetch an artifact by its id. Returns { artifactId, name, mimeType, content }, or an error if no artifact has that id.",
  read_file:
    "Read a text file from the workspace. Returns the requested lines of the file with the total line count and whether the output was cut short; read a long file in pieces with offset and limit.",
  write_file:
    "Create a file in the workspace or overwrite it completely with the given content. Returns the path and the number of bytes written. To change part of a file, read it first and write back the full new content.",
  list_files:
    "List files and directories in the workspace. Returns entries with path, type (file or directory), size and modification time. Use recursive and pattern (a glob) to find files across subdirectories.",
  get_workspace_info:
    "Describe the agent's workspace. Returns its root path and summary facts about it, such as the number of files and their total size. Use it to orient yourself before working with files or running commands.",
  run_command:
    "Run a shell command in the workspace and wait for it to finish. Returns { exitCode, stdout, stderr }, with long output truncated; a command that outlives timeoutMs is killed. Use it to build, test, search or run tools; it is not interactive, so pass flags that avoid prompts.",
  run_javascript:
    "Run JavaScript code in a sandbox and return its result. The code is the body of an async function: `await` works and the value you `return` comes back as JSON together with anything printed with console.log. Use it for calculations and data transformations.",
  http_request:
    "Send an HTTP request and return the response as { status, headers, body }, with a long body truncated. Use it to call web APIs or fetch pages; only http and https URLs are allowed.",
  compress_context:
    "Free up room in your context window: your older messages are replaced by the summary you write, and only the most recent messages are kept verbatim. Returns the context size before and after. Use it when get_context_status shows the context nearly full; anything left out of the summary is lost.",
  get_context_status:
    "Report how full your conversation context is. Returns { usedTokens, maxTokens, messageCount }. Check it during long tasks to decide whether to call compress_context.",
  console_print:
    "Print a message to the operator's console, where the people running the system can see it. Returns a confirmation. Use it for progress reports and warnings meant for people rather than for other agents.",
  ask_user:
    "Ask a person a question and wait for the answer. Give options when the answer is one of a few (set multiple to allow several); without options the person answers in their own words. " +
    'Returns { "action": "accept", "answer": ... } with the chosen option(s) or the words, or { "action": "decline" } when the person will not answer. ' +
    "Ask when you need a decision or knowledge only a person has; never ask for passwords or other secrets.",
};

/** A status the agent polls while it works: identical calls in a row are expected, not a loop. */
const POLICIES: Partial<Record<BuiltinToolName, ToolPolicy>> = {
  get_context_status: { repeatLimit: 0 },
  read_file: { pathArguments: ["path"] },
  write_file: { pathArguments: ["path"] },
  list_files: { pathArguments: ["path"] },
  run_command: { commandArguments: ["command"], pathArguments: ["cwd"] },
};

function parametersOf(name: BuiltinToolName): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(builtinParameters()[name], { io: "input" });
  return schema;
}

export function buildBuiltinGroups(): Array<{ id: ReservedGroupId; description: string; tools: ToolDefinition[] }> {
  return RESERVED_GROUP_IDS.map((id) => ({
    id,
    description: GROUPS[id].description,
    tools: GROUPS[id].tools.map((name) => ({
      type: "function" as const,
      function: { name, description: TOOL_DESCRIPTIONS[name], parameters: parametersOf(name) },
      ...(POLICIES[name] ? { "x-toolgate": POLICIES[name] } : {}),
    })),
  }));
}

let built: ReturnType<typeof buildBuiltinGroups> | undefined;

/** The built-in groups, turned from their zod parameters into JSON Schema on first use rather than when a function starts. */
export const builtinGroups = () => (built ??= buildBuiltinGroups());
