import { beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { githubGroup as asGroup } from "../support/upstream-mcp";
import { agentWithGroups, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const ids: Record<string, string> = {};

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  for (const toolset of ["gh_issues", "gh_labels", "gh_pull_requests", "gh_stargazers"]) {
    ids[toolset] = unique(toolset.slice(3));
    await putGroup(request, ids[toolset]!, asGroup(toolset));
  }
});

const names = (body: { tools: Array<{ function: { name: string } }> }) => body.tools.map((t) => t.function.name);

test("GET /agents/:id/tools/search - the best-matching tools the agent may call, best first, as OpenAI definitions", async () => {
  const { agent, token } = await agentWithGroups(request, [ids.gh_issues!, ids.gh_labels!, ids.gh_stargazers!]);
  const search = (q: string, limit?: number) =>
    request("GET", `/agents/${agent.id}/tools/search?q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ""}`, { token });
  const star = await search("star the octocat/hello-world repository");
  expect(star.status).toBe(200);
  expect(names(star.body)[0]).toBe("star_repository");
  expect(star.body.tools.length).toBeLessThanOrEqual(5);
  expect(star.body.tools[0]).toEqual({ type: "function", function: expect.objectContaining({ name: "star_repository", parameters: expect.any(Object) }) });
  expect(names((await search("write a comment on a bug report", 3)).body)).toContain("add_issue_comment");
  expect((await search("write a comment on a bug report", 3)).body.tools.length).toBeLessThanOrEqual(3);
});

test("GET /agents/:id/tools/search - never a tool the agent may not call: another role's groups and disabled tools stay out", async () => {
  const { agent, token } = await agentWithGroups(request, [ids.gh_labels!]);
  const visible = (await request("GET", `/agents/${agent.id}/tools`, { token })).body.tools.map((t: { function: { name: string } }) => t.function.name);
  for (const q of ["merge a pull request", "create an issue", "star a repository", "list labels", "review code changes"]) {
    const found = names((await request("GET", `/agents/${agent.id}/tools/search?q=${encodeURIComponent(q)}&limit=10`, { token })).body);
    expect(found.every((name) => visible.includes(name)), q).toBe(true);
  }
  const [first] = visible;
  expect((await request("POST", `/tools/${first}/disable`)).status).toBe(200);
  try {
    const found = names((await request("GET", `/agents/${agent.id}/tools/search?q=${encodeURIComponent(first.replaceAll("_", " "))}&limit=10`, { token })).body);
    expect(found).not.toContain(first);
  } finally {
    await request("POST", `/tools/${first}/enable`);
  }
});

test("GET /agents/:id/tools/search - the admin or the agent itself; a missing or overlong query is 400 invalid_query", async () => {
  const { agent, token } = await agentWithGroups(request, [ids.gh_labels!]);
  const other = await agentWithGroups(request, [ids.gh_labels!]);
  expect((await request("GET", `/agents/${agent.id}/tools/search?q=labels`)).status).toBe(200);
  expect((await request("GET", `/agents/${agent.id}/tools/search?q=labels`, { token: other.token })).status).toBe(403);
  for (const q of ["", "?limit=3", `?q=${"x".repeat(1_001)}`, "?q=labels&limit=0", "?q=labels&limit=500"]) {
    const response = await request("GET", `/agents/${agent.id}/tools/search${q.startsWith("?") ? q : `?q=${q}`}`, { token });
    expect(response.status, q).toBe(400);
    expect(response.body.error, q).toBe("invalid_query");
  }
});
