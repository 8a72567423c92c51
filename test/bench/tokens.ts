// The token economy of a reference organisation: toolgate's built-in groups and the 21 toolsets of GitHub's MCP server.
import { readFileSync } from "node:fs";
import { builtinGroups } from "@toolgate/core/builtin/groups";
import { loadTokenCounter, totalTokens } from "@toolgate/core/tool";
import type { ToolDefinition } from "@toolgate/core/tool";
import { metaGroup } from "@toolgate/core/builtin";
import { buildSearchIndex, searchTools } from "@toolgate/core/search";
import { forAgent } from "@toolgate/core/tool";
import { referenceCatalog, SEARCH_TASKS } from "./search-eval";
import type { Note, Out } from "./support";

type Toolsets = { toolsets: Array<{ id: string; description: string; tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> }> };

/** Three roles of a software team, by the groups each needs (built-in ids and GitHub toolset ids). */
export const REFERENCE_ROLES = {
  triager: ["context", "gh_context", "gh_issues", "gh_labels", "gh_notifications", "gh_projects", "gh_users"],
  reviewer: ["workspace", "gh_context", "gh_pull_requests", "gh_repositories", "gh_git", "gh_code_quality", "gh_code_security"],
  release_manager: ["command", "gh_context", "gh_actions", "gh_repositories", "gh_git", "gh_dependabot", "gh_secret_protection", "gh_security_advisories"],
} as const;

/** In search mode (toolLoading "search") each role pins the tools its agents reach for on almost every task. */
export const REFERENCE_PINNED: Record<keyof typeof REFERENCE_ROLES, string[]> = {
  triager: ["issue_read", "list_issues", "add_issue_comment"],
  reviewer: ["pull_request_read", "get_file_contents", "pull_request_review_write"],
  release_manager: ["actions_list", "list_releases", "get_latest_release"],
};

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
export async function benchTokens(out: Out, note: Note) {
  const count = await loadTokenCounter();
  const groups = referenceGroups();
  const all = totalTokens(count, [...groups.values()].flat());
  out("tokens_all_tools", all);
  out("tools_all", [...groups.values()].flat().length);
  const searchTools = totalTokens(count, metaGroup().tools);
  out("tokens_search_tools", searchTools);
  for (const [role, ids] of Object.entries(REFERENCE_ROLES)) {
    const tools = ids.flatMap((id) => groups.get(id) ?? []);
    const tokens = totalTokens(count, tools);
    out(`tokens_role_${role}`, tokens);
    out(`tokens_saved_pct_role_${role}`, ((100 * (all - tokens)) / all).toFixed(1));
    const pinned = REFERENCE_PINNED[role as keyof typeof REFERENCE_ROLES];
    const kept = tools.filter((tool) => pinned.includes(tool.function.name));
    if (kept.length !== pinned.length) throw new Error(`${role} pins a tool outside its groups: ${pinned.join(", ")}`);
    const searching = searchTools + totalTokens(count, kept);
    out(`tokens_role_${role}_search`, searching);
    out(`tokens_saved_pct_role_${role}_search`, ((100 * (all - searching)) / all).toFixed(1));
    out(`tokens_saved_pct_role_${role}_search_vs_role`, ((100 * (tokens - searching)) / tokens).toFixed(1));
  }
  const answers = searchAnswerTokens(count);
  out("tokens_search_tools_answer_p50", answers[Math.floor(answers.length / 2)]!);
  out("tokens_search_tools_answer_max", answers.at(-1)!);
  note(
    `tokens: o200k_base (gpt-tokenizer) of each tool's OpenAI function definition as JSON; reference organisation = ${groups.size} groups ` +
      `(7 built-in, 21 GitHub toolsets); roles: ${Object.entries(REFERENCE_ROLES).map(([role, ids]) => `${role} = ${ids.join(" + ")}`).join("; ")}; ` +
      `search mode = search_tools + call_tool + pinned: ${Object.entries(REFERENCE_PINNED).map(([role, names]) => `${role} pins ${names.join(", ")}`).join("; ")}; ` +
      `_search_vs_role: saved against the same role loading all its tools; ` +
      `search_tools_answer: what one search_tools answer (limit 5) adds to the context, over the ${SEARCH_TASKS.length} evaluation tasks`,
  );
}

/** The tokens of a search_tools answer ({ query, tools }, the default five) for each evaluation task, sorted. */
function searchAnswerTokens(count: (text: string) => number): number[] {
  const catalog = referenceCatalog();
  const index = buildSearchIndex(catalog);
  const byName = new Map(catalog.map((entry) => [entry.definition.function.name, entry.definition]));
  return SEARCH_TASKS.map(({ task }) =>
    count(JSON.stringify({ query: task, tools: searchTools(index, task, { limit: 5 }).map((hit) => forAgent(byName.get(hit.name)!)) })),
  ).sort((a, b) => a - b);
}
