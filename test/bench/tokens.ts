// The token economy of a reference organisation: toolgate's built-in groups and the 21 toolsets of GitHub's MCP server.
import { readFileSync } from "node:fs";
import { builtinGroups } from "@toolgate/core/group";
import { loadTokenCounter, totalTokens } from "@toolgate/core/tool";
import type { ToolDefinition } from "@toolgate/core/tool";

type Toolsets = { toolsets: Array<{ id: string; description: string; tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> }> };

/** Three roles of a software team, by the groups each needs (built-in ids and GitHub toolset ids). */
export const REFERENCE_ROLES = {
  triager: ["context", "gh_context", "gh_issues", "gh_labels", "gh_notifications", "gh_projects", "gh_users"],
  reviewer: ["workspace", "gh_context", "gh_pull_requests", "gh_repositories", "gh_git", "gh_code_quality", "gh_code_security"],
  release_manager: ["command", "gh_context", "gh_actions", "gh_repositories", "gh_git", "gh_dependabot", "gh_secret_protection", "gh_security_advisories"],
} as const;

/** Every group of the reference organisation, its tools in the OpenAI function format agents receive. */
export function referenceGroups(): Map<string, ToolDefinition[]> {
  const github = JSON.parse(readFileSync(new URL("../support/github-mcp-toolsets.json", import.meta.url), "utf8")) as Toolsets;
  const groups = new Map<string, ToolDefinition[]>(builtinGroups().map((group) => [group.id, group.tools]));
  for (const toolset of github.toolsets)
    groups.set(
      toolset.id,
      toolset.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })),
    );
  return groups;
}

/** Prints the tokens of every tool, of each reference role, and what each role saves against every tool. */
export async function benchTokens(out: (name: string, value: string | number) => void, note: (text: string) => void) {
  const count = await loadTokenCounter();
  const groups = referenceGroups();
  const all = totalTokens(count, [...groups.values()].flat());
  out("tokens_all_tools", all);
  out("tools_all", [...groups.values()].flat().length);
  for (const [role, ids] of Object.entries(REFERENCE_ROLES)) {
    const tokens = totalTokens(count, ids.flatMap((id) => groups.get(id) ?? []));
    out(`tokens_role_${role}`, tokens);
    out(`tokens_saved_pct_role_${role}`, ((100 * (all - tokens)) / all).toFixed(1));
  }
  note(
    `tokens: o200k_base (gpt-tokenizer) of each tool's OpenAI function definition as JSON; reference organisation = ${groups.size} groups ` +
      `(7 built-in, 21 GitHub toolsets); roles: ${Object.entries(REFERENCE_ROLES).map(([role, ids]) => `${role} = ${ids.join(" + ")}`).join("; ")}`,
  );
}
