import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { handleModuleEvent } from "@toolgate/functions/event/modules";
import { serveToolgate } from "../support/http-server";
import { api, testToolgate, tool } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { githubToolset, slowly, startUpstreamMcp } from "../support/upstream-mcp";
import type { UpstreamMcp, UpstreamMcpOptions } from "../support/upstream-mcp";
import { agentWithGroups, moduleEvent, putGroup, storedText, unique } from "./helpers";

let toolgate: Toolgate;
let request: Api;
const upstreams: UpstreamMcp[] = [];
const logged: string[] = [];
const consoles = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
  vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
);

beforeAll(async () => {
  toolgate = await testToolgate();
  request = api(toolgate);
});

afterAll(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  for (const spy of consoles) spy.mockRestore();
});

afterEach(() => vi.unstubAllEnvs());

let prefixes = 0;
/** A short prefix unique within the run, so every test's imported tools have names of their own (at most 64 characters). */
const prefix = () => `g${(prefixes++).toString(36)}${randomUUID().slice(0, 4)}`;

async function upstreamOf(options: UpstreamMcpOptions) {
  const upstream = await startUpstreamMcp(options);
  upstreams.push(upstream);
  return upstream;
}

const names = (tools: Array<{ function: { name: string } }>) => tools.map((definition) => definition.function.name);

const call = (agentId: string, token: string, toolName: string, args: Record<string, unknown> = {}) =>
  request("POST", `/agents/${agentId}/calls`, { token, body: { tool: toolName, arguments: args } });

async function closedPort() {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = (probe.address() as AddressInfo);
      probe.close(() => resolve(port));
    });
  });
}

test("PUT /groups/:id - an MCP executor without tools imports every page of the server's tools/list", async () => {
  const toolset = githubToolset("gh_repositories");
  const upstream = await upstreamOf({ tools: toolset.tools, pageSize: 6 });
  const id = unique("repos");
  const group = await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url } });
  expect(upstream.listCursors).toEqual(["", "6", "12", "18"]);
  expect(group.toolCount).toBe(20);
  expect(names(group.tools)).toEqual(toolset.tools.map((mcpTool) => mcpTool.name));
  const createBranch = toolset.tools.find((mcpTool) => mcpTool.name === "create_branch")!;
  expect(group.tools.find((definition: { function: { name: string } }) => definition.function.name === "create_branch")).toStrictEqual({
    type: "function",
    function: { name: "create_branch", description: createBranch.description, parameters: createBranch.inputSchema },
  });
  expect(group.tools.map((definition: { function: { description: string } }) => definition.function.description)).toEqual(toolset.tools.map((mcpTool) => mcpTool.description));
  const deleteFile = group.tools.find((definition: { function: { name: string } }) => definition.function.name === "delete_file");
  expect(deleteFile["x-toolgate"]).toEqual({ dangerous: true });
  expect((await request("GET", `/tools/delete_file`)).body.group).toBe(id);
});

test("PUT /groups/:id - toolPrefix names every imported tool prefix_name, and calls reach the upstream under its own name", async () => {
  const toolset = githubToolset("gh_context");
  const upstream = await upstreamOf({ tools: toolset.tools });
  const toolPrefix = prefix();
  const id = unique("context");
  const group = await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix } });
  expect(names(group.tools)).toEqual(["get_me", "get_team_members", "get_teams"].map((name) => `${toolPrefix}_${name}`));
  const { agent, token } = await agentWithGroups(request, [id]);
  const answer = await call(agent.id, token, `${toolPrefix}_get_teams`, { user: "octocat" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(upstream.calls.at(-1)).toMatchObject({ name: "get_teams", arguments: { user: "octocat" } });
});

test("GET /agents/:id/tools - a role with two MCP groups sees exactly their tools, without x-toolgate", async () => {
  const issues = githubToolset("gh_issues");
  const labels = githubToolset("gh_labels");
  const [issuesUpstream, labelsUpstream] = await Promise.all([upstreamOf({ tools: issues.tools }), upstreamOf({ tools: labels.tools })]);
  const toolPrefix = prefix();
  const issuesId = unique("issues");
  const labelsId = unique("labels");
  await putGroup(request, issuesId, { description: issues.description, executor: { type: "mcp", url: issuesUpstream.url, toolPrefix } });
  await putGroup(request, labelsId, { description: labels.description, executor: { type: "mcp", url: labelsUpstream.url, toolPrefix } });
  await putGroup(request, unique("other"), { description: "Not for this role.", tools: [tool(unique("elsewhere"))], executor: { type: "http", url: "http://127.0.0.1:9/" } });
  const { agent, token } = await agentWithGroups(request, [issuesId, labelsId]);
  const visible = await request("GET", `/agents/${agent.id}/tools`, { token });
  expect(visible.status).toBe(200);
  expect(names(visible.body.tools).sort()).toEqual([...issues.tools, ...labels.tools].map((mcpTool) => `${toolPrefix}_${mcpTool.name}`).sort());
  expect(visible.body.tools.some((definition: Record<string, unknown>) => "x-toolgate" in definition)).toBe(false);
});

test("POST /agents/:id/calls - an MCP tool call is forwarded, recorded, rate-limited and refused like any other", async () => {
  const toolset = githubToolset("gh_stargazers");
  const upstream = await upstreamOf({ tools: toolset.tools });
  const toolPrefix = prefix();
  const id = unique("stars");
  await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix } });
  const { agent, token } = await agentWithGroups(request, [id]);
  const star = `${toolPrefix}_star_repository`;

  const done = await call(agent.id, token, star, { owner: "octocat", repo: "hello-world" });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  expect(done.body).toMatchObject({ status: "completed", result: { type: "text", content: 'star_repository {"owner":"octocat","repo":"hello-world"}' } });
  const record = await request("GET", `/agents/${agent.id}/calls/${done.body.callId}`, { token });
  expect(record.body).toMatchObject({ tool: star, group: id, status: "completed", arguments: { owner: "octocat", repo: "hello-world" } });

  upstream.answer(() => ({ content: [{ type: "text", text: "{}" }], structuredContent: { starred: true } }));
  const json = await call(agent.id, token, `${toolPrefix}_list_starred_repositories`, {});
  expect(json.body).toMatchObject({ status: "completed", result: { type: "json", content: '{"starred":true}' } });

  const callsBefore = upstream.calls.length;
  const invalid = await call(agent.id, token, star, { owner: "octocat" });
  expect(invalid.status).toBe(400);
  expect(invalid.body.error).toBe("invalid_arguments");
  const unavailable = await call(agent.id, token, "get_me", {});
  expect([403, 404]).toContain(unavailable.status);
  expect(upstream.calls.length).toBe(callsBefore);

  const policy = await request("PUT", `/tools/${toolPrefix}_unstar_repository/policy`, { body: { rateLimit: { perMinute: 1 } } });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  expect((await call(agent.id, token, `${toolPrefix}_unstar_repository`, { owner: "o", repo: "a" })).status).toBe(200);
  const limited = await call(agent.id, token, `${toolPrefix}_unstar_repository`, { owner: "o", repo: "b" });
  expect(limited.status).toBe(429);
  expect(limited.body.error).toBe("rate_limited");
  const history = await request("GET", `/agents/${agent.id}/calls`, { token });
  expect(history.body.calls.map((record: { status: string }) => record.status)).toEqual(["refused", "completed", "refused", "refused", "completed", "completed"]);
});

test("POST /agents/:id/calls - an upstream isError result is a call with status error; an unreachable server is 502; a slow one 504", async () => {
  const toolset = githubToolset("gh_users");
  const upstream = await upstreamOf({ tools: toolset.tools });
  const toolPrefix = prefix();
  const id = unique("users");
  await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix, timeoutMs: 300 } });
  const { agent, token } = await agentWithGroups(request, [id]);
  const search = `${toolPrefix}_search_users`;

  upstream.answer(() => ({ content: [{ type: "text", text: "API rate limit exceeded" }], isError: true }));
  const failed = await call(agent.id, token, search, { query: "octo" });
  expect(failed.status, JSON.stringify(failed.body)).toBe(200);
  expect(failed.body).toMatchObject({ status: "error", result: { type: "error", content: "API rate limit exceeded" } });
  expect((await request("GET", `/agents/${agent.id}/calls/${failed.body.callId}`, { token })).body.status).toBe("error");

  upstream.answer(async (received) => {
    await slowly(5_000, received.signal);
    return { content: [{ type: "text", text: "late" }] };
  });
  const started = Date.now();
  const slow = await call(agent.id, token, search, { query: "slow" });
  expect(slow.status, JSON.stringify(slow.body)).toBe(504);
  expect(slow.body.error).toBe("tool_timeout");
  expect(Date.now() - started, "answered without waiting for the upstream's answer, which comes after 5 s").toBeLessThan(5_000);
  await expect.poll(() => upstream.cancelled.map((cancelled) => cancelled.arguments.query)).toContain("slow");
  expect((await request("GET", `/agents/${agent.id}/calls/${slow.body.callId}`, { token })).body.status).toBe("timed_out");

  const gone = unique("gone");
  const goneTool = `${toolPrefix}_gone`;
  await putGroup(request, gone, { description: "Served by nobody.", tools: [tool(goneTool)], executor: { type: "mcp", url: `http://127.0.0.1:${await closedPort()}/mcp` } });
  const goneAgent = await agentWithGroups(request, [gone]);
  const unreachable = await call(goneAgent.agent.id, goneAgent.token, goneTool);
  expect(unreachable.status, JSON.stringify(unreachable.body)).toBe(502);
  expect(unreachable.body).toMatchObject({ error: "executor_failed", callId: expect.any(String) });
  expect((await request("GET", `/agents/${goneAgent.agent.id}/calls/${unreachable.body.callId}`)).body).toMatchObject({ status: "error", error: { code: "executor_failed" } });
});

test("a header secret reaches the upstream and appears nowhere else: not in groups, call records, DynamoDB or logs", async () => {
  const secretName = `GH_${randomUUID().replaceAll("-", "").slice(0, 8).toUpperCase()}`;
  const secret = `ghp_${randomUUID().replaceAll("-", "")}`;
  vi.stubEnv(`TOOLGATE_SECRET_${secretName}`, secret);
  const toolset = githubToolset("gh_gists");
  const upstream = await upstreamOf({ tools: toolset.tools, answer: (received) => ({ content: [{ type: "text", text: `token was ${received.headers.authorization}` }] }) });
  const toolPrefix = prefix();
  const id = unique("gists");
  const executor = { type: "mcp", url: upstream.url, toolPrefix, headers: { Authorization: { secret: secretName, prefix: "Bearer " }, "X-MCP-Toolsets": "gists" } };
  await putGroup(request, id, { description: toolset.description, executor });
  const { agent, token } = await agentWithGroups(request, [id]);
  const answer = await call(agent.id, token, `${toolPrefix}_get_gist`, { gist_id: "1" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);

  expect(upstream.requests.length).toBeGreaterThan(0);
  for (const received of upstream.requests) expect(received.headers).toMatchObject({ authorization: `Bearer ${secret}`, "x-mcp-toolsets": "gists" });
  expect(answer.body.result.content).toBe("token was Bearer [REDACTED]");
  const group = await request("GET", `/groups/${id}`);
  expect(group.body.executor).toEqual(executor);
  const surfaces = [
    group.body,
    (await request("GET", "/groups")).body,
    (await request("GET", `/agents/${agent.id}/calls`, { token })).body,
    (await request("GET", `/agents/${agent.id}/calls/${answer.body.callId}`, { token })).body,
    answer.body,
  ];
  for (const surface of surfaces) expect(JSON.stringify(surface)).not.toContain(secret);
  expect(await storedText(toolgate)).not.toContain(secret);
  expect(logged.join("\n")).not.toContain(secret);
});

test("secrets - a literal Authorization header is refused; a secret missing at call time is 502 naming it, never a value", async () => {
  const toolset = githubToolset("gh_git");
  const upstream = await upstreamOf({ tools: toolset.tools });
  const literal = await request("PUT", `/groups/${unique("literal")}`, {
    body: { description: "d", executor: { type: "mcp", url: upstream.url, headers: { Authorization: "Bearer ghp_literal" } } },
  });
  expect(literal.status).toBe(400);
  expect(literal.body).toMatchObject({ error: "invalid_group_def", details: [{ path: "executor.headers.Authorization" }] });
  expect(upstream.requests).toHaveLength(0);

  const secretName = `GH_${randomUUID().replaceAll("-", "").slice(0, 8).toUpperCase()}`;
  const missingAtImport = await request("PUT", `/groups/${unique("nosecret")}`, {
    body: { description: "d", executor: { type: "mcp", url: upstream.url, headers: { Authorization: { secret: secretName } } } },
  });
  expect(missingAtImport.status).toBe(502);
  expect(missingAtImport.body).toMatchObject({ error: "mcp_import_failed", secret: secretName, message: expect.stringContaining(`TOOLGATE_SECRET_${secretName}`) });

  vi.stubEnv(`TOOLGATE_SECRET_${secretName}`, "ghp_present-at-import");
  const toolPrefix = prefix();
  const id = unique("git");
  await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix, headers: { Authorization: { secret: secretName } } } });
  vi.unstubAllEnvs();
  const { agent, token } = await agentWithGroups(request, [id]);
  const missing = await call(agent.id, token, `${toolPrefix}_get_repository_tree`, { owner: "o", repo: "r" });
  expect(missing.status).toBe(502);
  expect(missing.body).toMatchObject({ error: "executor_failed", secret: secretName });
  expect(missing.body.message).toContain(secretName);
  expect(JSON.stringify(missing.body)).not.toContain("ghp_present-at-import");
});

test("POST /groups/:id/refresh - re-imports the server's tools after they change, and says what was added and removed", async () => {
  const toolset = githubToolset("gh_notifications");
  const upstream = await upstreamOf({ tools: toolset.tools.slice(0, 4), pageSize: 3 });
  const toolPrefix = prefix();
  const id = unique("notifications");
  await putGroup(request, id, { description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix } });
  upstream.setTools(toolset.tools.slice(2));
  const refreshed = await request("POST", `/groups/${id}/refresh`);
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  const prefixed = (tools: Array<{ name: string }>) => tools.map((mcpTool) => `${toolPrefix}_${mcpTool.name}`);
  expect(names(refreshed.body.tools)).toEqual(prefixed(toolset.tools.slice(2)));
  expect(refreshed.body.added).toEqual(prefixed(toolset.tools.slice(4)));
  expect(refreshed.body.removed).toEqual(prefixed(toolset.tools.slice(0, 2)));
  expect(names((await request("GET", `/groups/${id}`)).body.tools)).toEqual(prefixed(toolset.tools.slice(2)));
  expect((await request("GET", `/tools/${prefixed(toolset.tools)[0]}`)).status).toBe(404);

  expect((await request("POST", `/groups/${id}/refresh`, { token: null })).status).toBe(401);
  const { token } = await agentWithGroups(request, [id]);
  expect((await request("POST", `/groups/${id}/refresh`, { token })).status).toBe(403);
  expect((await request("POST", `/groups/${unique("absent")}/refresh`)).body.error).toBe("group_not_found");
  expect((await request("POST", "/groups/workspace/refresh")).body.error).toBe("reserved_group_id");
  const httpGroup = unique("plain");
  await putGroup(request, httpGroup, { description: "d", tools: [tool(unique("plain_tool"))], executor: { type: "http", url: "http://127.0.0.1:9/" } });
  const notMcp = await request("POST", `/groups/${httpGroup}/refresh`);
  expect(notMcp.status).toBe(409);
  expect(notMcp.body.error).toBe("not_an_mcp_group");
});

test("a failed import registers nothing: unreachable server, tool name conflict, invalid names, a failed refresh", async () => {
  const unreachableId = unique("unreachable");
  const unreachable = await request("PUT", `/groups/${unreachableId}`, {
    body: { description: "d", executor: { type: "mcp", url: `http://127.0.0.1:${await closedPort()}/mcp` } },
  });
  expect(unreachable.status).toBe(502);
  expect(unreachable.body).toMatchObject({ error: "mcp_import_failed", message: expect.stringContaining("Nothing was registered") });
  expect((await request("GET", `/groups/${unreachableId}`)).status).toBe(404);

  const toolset = githubToolset("gh_dependabot");
  const toolPrefix = prefix();
  const owner = unique("owner");
  await putGroup(request, owner, { description: "d", tools: [tool(`${toolPrefix}_list_dependabot_alerts`)], executor: { type: "http", url: "http://127.0.0.1:9/" } });
  const upstream = await upstreamOf({ tools: toolset.tools });
  const conflictId = unique("conflict");
  const conflict = await request("PUT", `/groups/${conflictId}`, { body: { description: "d", executor: { type: "mcp", url: upstream.url, toolPrefix } } });
  expect(conflict.status).toBe(409);
  expect(conflict.body).toMatchObject({ error: "tool_name_conflict", toolName: `${toolPrefix}_list_dependabot_alerts`, ownerGroup: owner });
  expect((await request("GET", `/groups/${conflictId}`)).status).toBe(404);
  expect((await request("GET", `/tools/${toolPrefix}_get_dependabot_alert`)).status).toBe(404);

  const dotted = await upstreamOf({ tools: [{ name: "files.read", inputSchema: { type: "object" } }, { name: "ok", inputSchema: { type: "object" } }] });
  const dottedId = unique("dotted");
  const invalid = await request("PUT", `/groups/${dottedId}`, { body: { description: "d", executor: { type: "mcp", url: dotted.url } } });
  expect(invalid.status).toBe(400);
  expect(invalid.body).toMatchObject({ error: "invalid_group_def", details: [{ path: "tools.0.name", message: expect.stringContaining("files.read") }] });
  expect((await request("GET", `/groups/${dottedId}`)).status).toBe(404);

  const empty = await upstreamOf({ tools: [] });
  const none = await request("PUT", `/groups/${unique("empty")}`, { body: { description: "d", executor: { type: "mcp", url: empty.url } } });
  expect(none.status).toBe(400);
  expect(none.body.message).toContain("lists no tools");

  const kept = await upstreamOf({ tools: githubToolset("gh_code_quality").tools });
  const keptId = unique("kept");
  const keptPrefix = prefix();
  const before = await putGroup(request, keptId, { description: "d", executor: { type: "mcp", url: kept.url, toolPrefix: keptPrefix } });
  await kept.close();
  const failedRefresh = await request("POST", `/groups/${keptId}/refresh`);
  expect(failedRefresh.status).toBe(502);
  expect(failedRefresh.body.error).toBe("mcp_import_failed");
  expect((await request("GET", `/groups/${keptId}`)).body).toEqual(before);
});

test("PUT /groups/:id - tools are still required without an MCP executor; given tools with an MCP executor are used as they are", async () => {
  const missing = await request("PUT", `/groups/${unique("notools")}`, { body: { description: "d", executor: { type: "http", url: "http://127.0.0.1:9/" } } });
  expect(missing.status).toBe(400);
  expect(missing.body).toMatchObject({ error: "invalid_group_def", details: [{ path: "tools", message: expect.stringContaining("MCP") }] });
  const upstream = await upstreamOf({ tools: githubToolset("gh_organizations").tools });
  const given = tool(unique("given"));
  const group = await putGroup(request, unique("given"), { description: "d", tools: [given], executor: { type: "mcp", url: upstream.url } });
  expect(group.tools).toEqual([given]);
  expect(upstream.listCursors).toEqual([]);
});

test("module.loaded - an MCP executor without tools loads the server's tools; an unreachable server rejects the module with its reason", async () => {
  const toolset = githubToolset("gh_security_advisories");
  const upstream = await upstreamOf({ tools: toolset.tools, pageSize: 2 });
  const module = unique("advisories");
  const toolPrefix = prefix();
  const outcome = await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module, version: 1, description: toolset.description, executor: { type: "mcp", url: upstream.url, toolPrefix } }));
  expect(outcome).toMatchObject({ outcome: "loaded", groupId: module });
  expect(upstream.listCursors).toEqual(["", "2"]);
  const group = await request("GET", `/groups/${module}`);
  expect(group.body).toMatchObject({ source: "module", module, toolCount: 4 });
  expect(names(group.body.tools)).toEqual(toolset.tools.map((mcpTool) => `${toolPrefix}_${mcpTool.name}`));
  expect((await request("GET", `/modules/${module}`)).body).toMatchObject({ status: "loaded", version: 1 });

  const refreshed = await request("POST", `/groups/${module}/refresh`);
  expect(refreshed.body).toMatchObject({ source: "module", module, added: [], removed: [] });

  const broken = unique("broken");
  const rejected = await handleModuleEvent(toolgate, moduleEvent("module.loaded", { module: broken, version: 1, description: "d", executor: { type: "mcp", url: `http://127.0.0.1:${await closedPort()}/mcp` } }));
  expect(rejected).toMatchObject({ outcome: "rejected", reason: { error: "mcp_import_failed" } });
  expect((await request("GET", `/modules/${broken}`)).body).toMatchObject({ status: "rejected", reason: { error: "mcp_import_failed", message: expect.any(String) } });
  expect((await request("GET", `/groups/${broken}`)).status).toBe(404);
});

test("through /mcp - an agent whose role has two GitHub toolsets served by upstream MCP servers lists exactly their tools, and a call is forwarded, recorded, rate-limited and refused", async () => {
  const issues = githubToolset("gh_issues");
  const labels = githubToolset("gh_labels");
  const [issuesUpstream, labelsUpstream] = await Promise.all([upstreamOf({ tools: issues.tools, pageSize: 4 }), upstreamOf({ tools: labels.tools })]);
  const toolPrefix = prefix();
  const issuesId = unique("issues");
  const labelsId = unique("labels");
  await putGroup(request, issuesId, { description: issues.description, executor: { type: "mcp", url: issuesUpstream.url, toolPrefix } });
  await putGroup(request, labelsId, { description: labels.description, executor: { type: "mcp", url: labelsUpstream.url, toolPrefix } });
  const { agent, token } = await agentWithGroups(request, [issuesId, labelsId]);
  const served = await serveToolgate(toolgate);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([...issues.tools, ...labels.tools].map((mcpTool) => `${toolPrefix}_${mcpTool.name}`).sort());
    const upstreamSchema = labels.tools.find((t) => t.name === "list_label")!.inputSchema;
    expect(listed.find((t) => t.name === `${toolPrefix}_list_label`)!.inputSchema).toMatchObject({ properties: upstreamSchema.properties });

    const listLabel = `${toolPrefix}_list_label`;
    expect((await request("PUT", `/tools/${listLabel}/policy`, { body: { rateLimit: { perMinute: 1 } } })).status).toBe(200);
    const done: any = await client.callTool({ name: listLabel, arguments: { owner: "octocat", repo: "hello-world" } });
    expect(done.content).toEqual([{ type: "text", text: 'list_label {"owner":"octocat","repo":"hello-world"}' }]);
    expect(labelsUpstream.calls.map((c) => c.name)).toEqual(["list_label"]);
    const record = await request("GET", `/agents/${agent.id}/calls/${done._meta.callId}`, { token });
    expect(record.body).toMatchObject({ tool: listLabel, group: labelsId, status: "completed" });

    const limited: any = await client.callTool({ name: listLabel, arguments: { owner: "octocat", repo: "other" } });
    expect(limited).toMatchObject({ isError: true, _meta: { code: "rate_limited", recoverable: true } });
    const invalid: any = await client.callTool({ name: listLabel, arguments: { owner: 42 } });
    expect(invalid).toMatchObject({ isError: true, _meta: { code: "invalid_arguments" } });
    expect(labelsUpstream.calls).toHaveLength(1);
  } finally {
    await client.close();
    await served.close();
  }
});
