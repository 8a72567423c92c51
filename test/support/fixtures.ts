import type { Agent } from "@toolgate/core/agent";
import type { Role } from "@toolgate/core/role";

export const NOW = "2024-01-01T00:00:00.000Z";

/** A stored role as the domain sees it, for pure tests that need no DynamoDB. */
export const roleFixture = (id: string, toolGroups: string[] | null, name = `role ${id}`): Role => ({
  id,
  name,
  rolePrompt: "",
  toolGroups,
  createdBy: "admin",
  createdAt: NOW,
  updatedAt: NOW,
  status: "active",
  llmServiceId: null,
  toolLoading: "all",
  pinnedTools: [],
  workspaceRoot: null,
  questions: "user",
  version: 1,
});

/** The built-in groups and their tools, as design.md lists them. */
export const BUILTIN_TOOLS: Record<string, string[]> = {
  org_management: ["find_role_by_name", "create_role", "spawn_agent", "spawn_agent_with_task", "terminate_agent", "send_message"],
  artifact: ["put_artifact", "get_artifact"],
  workspace: ["read_file", "write_file", "list_files", "get_workspace_info"],
  command: ["run_command", "run_javascript"],
  network: ["http_request"],
  context: ["compress_context", "get_context_status"],
  console: ["console_print", "ask_user"],
};

/** An active agent with no department or level. */
export const agentFixture = (id: string, roleId: string, name = id): Agent => ({
  id,
  roleId,
  name,
  status: "active",
  department: null,
  level: null,
  workspaceRoot: null,
  createdBy: "admin",
  createdAt: NOW,
  tokenVersion: 1,
});
