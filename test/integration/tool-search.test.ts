import { afterAll, beforeAll, expect, test } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { Toolgate } from "@toolgate/core/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { githubGroup as asGroup } from "../support/upstream-mcp";
import { createAgent, createRole, putGroup, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
let executor: Executor;
const ids: Record<string, string> = {};

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
  executor = await startExecutor((call) => ({ body: { content: `ran ${call.body.tool}`, type: "text" } }));
  for (const toolset of ["gh_issues", "gh_labels", "gh_stargazers"]) {
    ids[toolset] = unique(toolset.slice(3));
    await putGroup(request, ids[toolset]!, asGroup(toolset, `${executor.url}/run`));
  }
});

afterAll(() => executor.close());

type Definition = { type?: string; function: { name: string } };
const names = (tools: Definition[]) => tools.map((t) => t.function.name);
const tokensOf = (tools: Definition[]) => tools.reduce((sum, t) => sum + countTokens(JSON.stringify({ type: "function", function: t.function })), 0);

/** A role in search mode over issues and labels that pins one tool, and one agent of it. */
async function searchAgent(pinnedTools = ["issue_read"]) {
  const role = await createRole(request, { name: unique("searcher"), toolGroups: [ids.gh_issues, ids.gh_labels], toolLoading: "search", pinnedTools });
  const { agent, token } = await createAgent(request, role.id);
  return { role, agent, token };
}

const call = (agentId: string, token: string, tool: string, args: Record<string, unknown>) =>
  request("POST", `/agents/${agentId}/calls`, { token, body: { tool, arguments: args } });

test("a role in search mode lists only its pinned tools, search_tools and call_tool, and says what that costs next to loading all", async () => {
  const { role, agent, token } = await searchAgent();
  expect(role).toMatchObject({ toolLoading: "search", pinnedTools: ["issue_read"] });
  const listed = (await request("GET", `/agents/${agent.id}/tools`, { token })).body;
  expect(listed.toolLoading).toBe("search");
  expect(names(listed.tools)).toEqual(["issue_read", "search_tools", "call_tool"]);
  expect(listed.tokens).toBe(tokensOf(listed.tools));

  const read = (await request("GET", `/roles/${role.id}`)).body;
  const groups = await Promise.all([ids.gh_issues, ids.gh_labels].map(async (id) => (await request("GET", `/groups/${id}`)).body.tokens as number));
  expect(read.loadingTokens.all).toBe(groups[0]! + groups[1]!);
  expect(read.loadingTokens.search).toBe(listed.tokens);
  expect(read.loadingTokens.searchTools).toBe(tokensOf(listed.tools.slice(1)));
  expect(read.toolTokens).toBe(read.loadingTokens.search);
  expect(read.toolTokens).toBeLessThan(read.loadingTokens.all / 3);
});

test("switching a role between all and search changes what its agents list at once; what they may call stays the same", async () => {
  const { role, agent, token } = await searchAgent([]);
  const listed = async () => names((await request("GET", `/agents/${agent.id}/tools`, { token })).body.tools);
  expect(await listed()).toEqual(["search_tools", "call_tool"]);
  const direct = await call(agent.id, token, "list_label", { owner: "octo", repo: "hello" });
  expect(direct.status, JSON.stringify(direct.body)).toBe(200);

  expect((await request("PATCH", `/roles/${role.id}`, { body: { toolLoading: "all" } })).status).toBe(200);
  const all = await listed();
  expect(all).toContain("list_label");
  expect(all).not.toContain("search_tools");
  expect((await request("PATCH", `/roles/${role.id}`, { body: { toolLoading: "search", pinnedTools: ["list_label"] } })).status).toBe(200);
  expect(await listed()).toEqual(["list_label", "search_tools", "call_tool"]);
});

test("pinned tools must be tools of the role's groups; toolLoading is all or search", async () => {
  const refused = await request("POST", "/roles", {
    body: { name: unique("pinning"), toolGroups: [ids.gh_labels], toolLoading: "search", pinnedTools: ["star_repository", "no_such_tool"] },
  });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ error: "invalid_pinned_tools", pinnedTools: ["star_repository", "no_such_tool"] });
  expect(refused.body.message).toContain("star_repository, no_such_tool");
  const { role } = await searchAgent();
  const patched = await request("PATCH", `/roles/${role.id}`, { body: { pinnedTools: ["star_repository"] } });
  expect(patched.status).toBe(400);
  expect(patched.body.error).toBe("invalid_pinned_tools");
  const badMode = await request("PATCH", `/roles/${role.id}`, { body: { toolLoading: "lazy" } });
  expect(badMode.status).toBe(400);
  expect(badMode.body.error).toBe("invalid_role");
  expect((await request("GET", `/roles/${role.id}`)).body).toMatchObject({ version: role.version, pinnedTools: ["issue_read"] });
});

test("search_tools finds the right tool among those the agent may call, through the guard, and is recorded", async () => {
  const { agent, token } = await searchAgent();
  const found = await call(agent.id, token, "search_tools", { query: "add a comment to a bug report", limit: 3 });
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  expect(found.body.status).toBe("completed");
  expect(found.body.result.type).toBe("json");
  const result = JSON.parse(found.body.result.content) as { query: string; tools: Definition[] };
  expect(result.query).toBe("add a comment to a bug report");
  expect(names(result.tools)).toContain("add_issue_comment");
  expect(result.tools.length).toBeLessThanOrEqual(3);

  const stars = JSON.parse((await call(agent.id, token, "search_tools", { query: "star a repository", limit: 20 })).body.result.content);
  expect(names(stars.tools)).not.toContain("star_repository");
  expect(names(stars.tools)).not.toContain("search_tools");

  const record = (await request("GET", `/agents/${agent.id}/calls/${found.body.callId}`)).body;
  expect(record).toMatchObject({ tool: "search_tools", group: "tool_search", status: "completed" });

  const invalid = await call(agent.id, token, "search_tools", { limit: 3 });
  expect(invalid.status).toBe(400);
  expect(invalid.body.error).toBe("invalid_arguments");
});

test("call_tool runs the named tool through the guard, recorded as that tool's call, with every refusal applying", async () => {
  const { agent, token } = await searchAgent();
  const ran = await call(agent.id, token, "call_tool", { name: "add_issue_comment", arguments: { owner: "octo", repo: "hello", issue_number: 7, body: "Seen." } });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body.result.content).toBe("ran add_issue_comment");
  expect(executor.requestsFor("add_issue_comment").at(-1)!.body.arguments).toEqual({ owner: "octo", repo: "hello", issue_number: 7, body: "Seen." });
  const record = (await request("GET", `/agents/${agent.id}/calls/${ran.body.callId}`)).body;
  expect(record).toMatchObject({ tool: "add_issue_comment", group: ids.gh_issues, status: "completed" });

  const outside = await call(agent.id, token, "call_tool", { name: "star_repository", arguments: { owner: "octo", repo: "hello" } });
  expect(outside.status).toBe(403);
  expect(outside.body).toMatchObject({ error: "tool_not_available", toolName: "star_repository" });
  expect((await request("GET", `/agents/${agent.id}/calls/${outside.body.callId}`)).body).toMatchObject({ tool: "star_repository", status: "refused" });

  const badArguments = await call(agent.id, token, "call_tool", { name: "add_issue_comment", arguments: { owner: "octo" } });
  expect(badArguments.status).toBe(400);
  expect(badArguments.body).toMatchObject({ error: "invalid_arguments", toolName: "add_issue_comment" });
  const unknown = await call(agent.id, token, "call_tool", { name: "no_such_tool", arguments: {} });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error).toBe("unknown_tool");

  for (const args of [{ arguments: {} }, { name: "call_tool", arguments: { name: "issue_read" } }, { name: "issue_read", extra: 1 }]) {
    const wrong = await call(agent.id, token, "call_tool", args);
    expect(wrong.status, JSON.stringify(args)).toBe(400);
    expect(wrong.body).toMatchObject({ error: "invalid_arguments", toolName: "call_tool" });
  }
});

test("a rate limit on a tool holds when it is called through call_tool", async () => {
  const limited = unique("limited");
  const name = unique("once_a_minute");
  await putGroup(request, limited, {
    description: "A rate-limited tool.",
    executor: { type: "http", url: `${executor.url}/run` },
    tools: [{ ...tool(name), "x-toolgate": { rateLimit: { perMinute: 1 } } }],
  });
  const role = await createRole(request, { name: unique("limited_role"), toolGroups: [limited], toolLoading: "search" });
  const { agent, token } = await createAgent(request, role.id);
  expect((await call(agent.id, token, "call_tool", { name, arguments: {} })).status).toBe(200);
  const second = await call(agent.id, token, "call_tool", { name, arguments: { again: true } });
  expect(second.status).toBe(429);
  expect(second.body).toMatchObject({ error: "rate_limited", toolName: name });
});

test("search_tools and call_tool are reserved: no group may bring a tool by either name, nor take the tool_search id", async () => {
  for (const name of ["search_tools", "Call_Tool"]) {
    const refused = await request("PUT", `/groups/${unique("clash")}`, { body: { description: "Clashes.", tools: [tool(name)] } });
    expect(refused.status, name).toBe(409);
    expect(refused.body).toMatchObject({ error: "reserved_tool_name", toolName: name });
  }
  const reservedId = await request("PUT", "/groups/tool_search", { body: { description: "Takes the id.", tools: [tool(unique("free"))] } });
  expect(reservedId.status).toBe(409);
  expect(reservedId.body.error).toBe("reserved_group_id");
});

test("GET /tools gives each tool's tokens, the same count GET /groups/:id gives", async () => {
  const listed = (await request("GET", "/tools")).body.tools as Array<{ name: string; group: string; tokens: number }>;
  const perTool = (await request("GET", `/groups/${ids.gh_labels}`)).body.toolTokens as Record<string, number>;
  const fromList = Object.fromEntries(listed.filter((t) => t.group === ids.gh_labels).map((t) => [t.name, t.tokens]));
  expect(fromList).toEqual(perTool);
});

test("exports in search mode: the listed tools in every format, and for Anthropic the rest too, marked defer_loading", async () => {
  const { agent, token } = await searchAgent();
  const get = async (format: string) => (await request("GET", `/agents/${agent.id}/tools?format=${format}`, { token })).body;
  for (const format of ["mcp", "gemini"])
    expect((await get(format)).tools.map((t: { name: string }) => t.name), format).toEqual(["issue_read", "search_tools", "call_tool"]);
  const anthropic = (await get("anthropic")).tools as Array<{ name: string; defer_loading?: boolean }>;
  expect(anthropic.filter((t) => !t.defer_loading).map((t) => t.name)).toEqual(["issue_read", "search_tools", "call_tool"]);
  const everything = names((await request("GET", `/agents/${agent.id}/tools/search?q=issue&limit=50`, { token })).body.tools);
  const deferred = anthropic.filter((t) => t.defer_loading === true).map((t) => t.name);
  expect(deferred).toContain("list_label");
  expect(deferred).not.toContain("issue_read");
  expect(everything.every((name) => name === "issue_read" || deferred.includes(name))).toBe(true);
});
