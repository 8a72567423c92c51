// The tool-search evaluation: what people and models ask for, in their own words, and the tools that would do it.
// Written before the ranking was tuned and left alone since, except to correct an expected tool that was plainly wrong.
import { readFileSync } from "node:fs";
import { builtinGroups } from "../../packages/core/src/builtin/groups";
import type { ToolDefinition } from "../../packages/core/src/tool/schema";

export type SearchTask = { task: string; expected: string[] };

type McpToolset = {
  id: string;
  description: string;
  tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
};

/** The reference organisation: the 21 GitHub MCP toolsets and toolgate's seven built-in groups. */
export function referenceCatalog(): Array<{ definition: ToolDefinition; groupId: string; groupDescription: string }> {
  const file = new URL("../support/github-mcp-toolsets.json", import.meta.url);
  const { toolsets } = JSON.parse(readFileSync(file, "utf8")) as { toolsets: McpToolset[] };
  const github = toolsets.flatMap((toolset) =>
    toolset.tools.map((tool) => ({
      definition: {
        type: "function" as const,
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      },
      groupId: toolset.id,
      groupDescription: toolset.description,
    })),
  );
  const builtin = builtinGroups().flatMap((group) =>
    group.tools.map((definition) => ({ definition, groupId: group.id, groupDescription: group.description })),
  );
  return [...github, ...builtin];
}

export const SEARCH_TASKS: SearchTask[] = [
  // GitHub Actions
  { task: "why did the CI build fail? show me the output of the broken jobs", expected: ["get_job_logs"] },
  { task: "kick off the deploy workflow on the main branch", expected: ["actions_run_trigger"] },
  { task: "re-run the failed jobs of yesterday's pipeline", expected: ["actions_run_trigger"] },
  { task: "stop the workflow run that is still going", expected: ["actions_run_trigger"] },
  { task: "which workflows does this repo have", expected: ["actions_list"] },
  { task: "show recent pipeline runs for ci.yaml", expected: ["actions_list"] },
  { task: "download the build artifact produced by run 1234", expected: ["actions_get", "actions_list"] },

  // code scanning, quality, dependabot, secrets, advisories
  { task: "are there any open static analysis warnings in the repo", expected: ["list_code_scanning_alerts"] },
  { task: "details of code scanning alert number 42", expected: ["get_code_scanning_alert"] },
  { task: "which of our dependencies have known vulnerabilities", expected: ["list_dependabot_alerts"] },
  { task: "look at one vulnerable dependency alert in detail", expected: ["get_dependabot_alert"] },
  { task: "did anyone commit an API key or password to the repository", expected: ["list_secret_scanning_alerts"] },
  { task: "look up CVE-2024-3094 in the advisory database", expected: ["list_global_security_advisories", "get_global_security_advisory"] },
  { task: "fetch advisory GHSA-xxxx-yyyy-zzzz", expected: ["get_global_security_advisory"] },
  { task: "security advisories published for the repos of our organization", expected: ["list_org_repository_security_advisories"] },
  { task: "show the code quality finding the bot reported", expected: ["get_code_quality_finding"] },

  // context, users, orgs, teams
  { task: "who am I logged in as on GitHub", expected: ["get_me"] },
  { task: "which people are on the platform team", expected: ["get_team_members"] },
  { task: "what teams do I belong to", expected: ["get_teams"] },
  { task: "find a developer named Linus on GitHub", expected: ["search_users"] },
  { task: "find companies or foundations on GitHub by name", expected: ["search_orgs"] },

  // copilot
  { task: "let the AI coding agent fix this ticket for me", expected: ["assign_copilot_to_issue", "assign_copilot_to_issue_with_intent"] },
  { task: "get an automated AI review of my PR before a human looks", expected: ["request_copilot_review"] },

  // discussions
  { task: "reply in the discussion thread and mark the answer", expected: ["discussion_comment_write"] },
  { task: "read the comments people left on discussion 17", expected: ["get_discussion_comments"] },
  { task: "what discussions are going on in the community forum of this repo", expected: ["list_discussions"] },
  { task: "which discussion categories exist", expected: ["list_discussion_categories"] },

  // gists
  { task: "share this snippet as a public gist", expected: ["create_gist"] },
  { task: "change the text of my existing gist", expected: ["update_gist"] },
  { task: "show all the gists a user has", expected: ["list_gists"] },

  // git tree
  { task: "show me the directory layout of the whole repository", expected: ["get_repository_tree"] },

  // issues
  { task: "open a bug report about the login page crashing", expected: ["issue_write"] },
  { task: "close issue 88 as a duplicate", expected: ["issue_write"] },
  { task: "leave a comment on ticket 12 saying it is fixed", expected: ["add_issue_comment"] },
  { task: "find tickets about the login failing after a password reset", expected: ["search_issues"] },
  { task: "show the open bugs in the repository", expected: ["list_issues", "search_issues"] },
  { task: "read the description and the comments of issue 301", expected: ["issue_read"] },
  { task: "make issue 5 a child of the epic issue 2", expected: ["sub_issue_write"] },
  { task: "what issue types can I choose from in this org", expected: ["list_issue_types"] },
  { task: "which custom fields can issues have here", expected: ["list_issue_fields"] },

  // labels
  { task: "create a new label called needs-triage in red", expected: ["label_write"] },
  { task: "which labels does the repository use", expected: ["list_label"] },

  // notifications
  { task: "what should I work on next? check my inbox", expected: ["list_notifications"] },
  { task: "clear all my unread alerts at once", expected: ["mark_all_notifications_read"] },
  { task: "stop getting pinged about this thread", expected: ["manage_notification_subscription", "dismiss_notification"] },
  { task: "watch every update from the kubernetes repository", expected: ["manage_repository_notification_subscription"] },
  { task: "mark this one notification as done", expected: ["dismiss_notification"] },

  // projects
  { task: "add this issue to our roadmap project board", expected: ["projects_write"] },
  { task: "list the items on project board 3", expected: ["projects_list"] },

  // pull requests
  { task: "open a PR from my feature branch into main", expected: ["create_pull_request"] },
  { task: "merge PR 77 with squash", expected: ["merge_pull_request"] },
  { task: "show me the diff of pull request 15", expected: ["pull_request_read"] },
  { task: "approve the pull request", expected: ["pull_request_review_write"] },
  { task: "find PRs authored by octocat", expected: ["search_pull_requests"] },
  { task: "which pull requests are open right now", expected: ["list_pull_requests"] },
  { task: "turn my draft PR into ready and change its title", expected: ["update_pull_request"] },
  { task: "bring the PR branch up to date with main", expected: ["update_pull_request_branch"] },
  { task: "answer the reviewer's comment on my pull request", expected: ["add_reply_to_pull_request_comment"] },
  { task: "add a line comment to my pending review", expected: ["add_comment_to_pending_review"] },

  // repositories
  { task: "start a new repo called toolbox under my account", expected: ["create_repository"] },
  { task: "make a copy of someone else's repository in my account", expected: ["fork_repository"] },
  { task: "permanently remove the old experiments repository", expected: ["delete_repository"] },
  { task: "create a branch for the hotfix", expected: ["create_branch"] },
  { task: "what branches exist in the repo", expected: ["list_branches"] },
  { task: "show the README from the GitHub repository", expected: ["get_file_contents"] },
  { task: "edit the config file on GitHub and commit it", expected: ["create_or_update_file", "push_files"] },
  { task: "upload several files to the repo in one commit", expected: ["push_files"] },
  { task: "remove the obsolete script from the GitHub repo", expected: ["delete_file"] },
  { task: "what changed in commit abc123", expected: ["get_commit"] },
  { task: "history of commits on the main branch", expected: ["list_commits"] },
  { task: "what was in the most recent release", expected: ["get_latest_release"] },
  { task: "release notes for version v2.1.0", expected: ["get_release_by_tag"] },
  { task: "list all version tags", expected: ["list_tags"] },
  { task: "who has write access to the repository", expected: ["list_repository_collaborators"] },
  { task: "where in all of GitHub is the function parseConfig defined", expected: ["search_code"] },
  { task: "find commits whose message mentions the memory leak", expected: ["search_commits"] },
  { task: "find example projects that use tree-sitter", expected: ["search_repositories"] },

  // stars
  { task: "bookmark this repository as a favorite", expected: ["star_repository"] },
  { task: "take my star off that project", expected: ["unstar_repository"] },
  { task: "which repos have I starred", expected: ["list_starred_repositories"] },

  // built-in groups
  { task: "is there already a role called reviewer", expected: ["find_role_by_name"] },
  { task: "define a new kind of agent with only the network tools", expected: ["create_role"] },
  { task: "start a helper agent and give it a job right away", expected: ["spawn_agent_with_task"] },
  { task: "shut down the agent that finished its work", expected: ["terminate_agent"] },
  { task: "tell the other agent what to do next", expected: ["send_message"] },
  { task: "save this report so other agents can read it", expected: ["put_artifact"] },
  { task: "open the document another agent shared by its id", expected: ["get_artifact"] },
  { task: "look at the contents of a local file in my workspace", expected: ["read_file"] },
  { task: "save text to a file on disk", expected: ["write_file"] },
  { task: "what files are in my working directory", expected: ["list_files"] },
  { task: "run the test suite with npm test", expected: ["run_command"] },
  { task: "execute a bit of JS to compute the average", expected: ["run_javascript"] },
  { task: "call a REST API with a POST", expected: ["http_request"] },
  { task: "my context window is almost full, summarise older messages", expected: ["compress_context"] },
  { task: "how many tokens have I used so far", expected: ["get_context_status"] },
  { task: "tell the human operator that the job is done", expected: ["console_print"] },
];
