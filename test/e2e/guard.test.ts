import { mkdtemp, rm } from "node:fs/promises";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { localEvents } from "../support/events";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { withinOneMinuteWindow } from "../guard/helpers";
import { githubGroup } from "../support/upstream-mcp";

let dataDir: string;
let stack: LocalProcess;
let executor: Executor;

const http = (method: string, path: string, token: string, body?: unknown) => stack.request(method, path, token, body);

const definition = (name: string, description: string, policy: Record<string, unknown>) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: { target: { type: "string" } }, required: ["target"] } },
  "x-toolgate": policy,
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "toolgate-guard-e2e-"));
  executor = await startExecutor(({ body }) => ({ body: { content: `${body?.tool} ${body?.arguments?.target}`, type: "text" } }));
  stack = await startLocalProcess(dataDir);
}, 90_000);

afterAll(async () => {
  await stack?.stop("SIGTERM");
  await executor?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test("npm start - an admin and an agent go through the guard over HTTP: confirmation, approval, denial, rate limit and history", async () => {
  const sent = await localEvents(stack).send(
    new PutEventsCommand({
      Entries: [
        {
          Source: "toolgate.modules",
          DetailType: "module.loaded",
          Detail: JSON.stringify({
            module: "ops",
            version: 1,
            description: "Operations tools",
            executor: { type: "http", url: `${executor.url}/ops` },
            tools: [
              definition("delete_server", "Delete a server.", { dangerous: true }),
              definition("ping_server", "Ping a server.", { rateLimit: { perMinute: 2 } }),
            ],
          }),
        },
      ],
    }),
  );
  expect(sent.FailedEntryCount).toBe(0);
  const until = Date.now() + 15_000;
  let module: any;
  while (Date.now() < until) {
    module = (await http("GET", "/modules/ops", stack.adminToken)).body;
    if (module?.status === "loaded") break;
    await new Promise((done) => setTimeout(done, 100));
  }
  expect(module).toMatchObject({ module: "ops", status: "loaded", groupId: "ops" });

  const role = await http("POST", "/roles", stack.adminToken, { name: "operator", rolePrompt: "Run the servers.", toolGroups: ["ops"] });
  expect(role.status).toBe(201);
  const created = await http("POST", "/agents", stack.adminToken, { roleId: role.body.id, name: "op-1" });
  expect(created.status).toBe(201);
  const { agent, token } = created.body;
  const call = (tool: string, target: string) => http("POST", `/agents/${agent.id}/calls`, token, { tool, arguments: { target } });

  const tools = await http("GET", `/agents/${agent.id}/tools`, token);
  expect(tools.body.tools.map((t: any) => t.function.name).sort()).toEqual(["delete_server", "ping_server"]);
  expect(JSON.stringify(tools.body)).not.toContain("x-toolgate");

  const first = await call("delete_server", "web-1");
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ status: "awaiting_confirmation" });
  const second = await call("delete_server", "web-2");
  expect(second.status).toBe(202);
  expect(executor.requests).toHaveLength(0);

  expect((await http("POST", `/calls/${first.body.callId}/approve`, token)).status).toBe(403);
  const approved = await http("POST", `/calls/${first.body.callId}/approve`, stack.adminToken);
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ callId: first.body.callId, status: "completed", result: { content: "delete_server web-1", type: "text" } });
  const denied = await http("POST", `/calls/${second.body.callId}/deny`, stack.adminToken);
  expect(denied.status).toBe(200);
  expect(denied.body).toMatchObject({ status: "denied", deniedBy: "admin" });
  expect((await http("POST", `/calls/${second.body.callId}/approve`, stack.adminToken)).status).toBe(409);
  expect(executor.requestsFor("delete_server").map((r) => r.body.arguments)).toEqual([{ target: "web-1" }]);

  await withinOneMinuteWindow();
  expect((await call("ping_server", "a")).status).toBe(200);
  expect((await call("ping_server", "b")).status).toBe(200);
  const limited = await call("ping_server", "c");
  expect(limited.status).toBe(429);
  expect(limited.body).toMatchObject({ error: "rate_limited", recoverable: true, retryAfterSeconds: expect.any(Number) });

  const invalid = await call("ping_server", 42 as unknown as string);
  expect(invalid.status).toBe(400);
  expect(invalid.body).toMatchObject({ error: "invalid_arguments", details: [{ path: "target", message: expect.any(String) }] });

  const history = await http("GET", `/agents/${agent.id}/calls?limit=100`, token);
  expect(history.status).toBe(200);
  expect(history.body.calls.map((c: any) => [c.tool, c.status, c.error?.code ?? null])).toEqual([
    ["ping_server", "refused", "invalid_arguments"],
    ["ping_server", "refused", "rate_limited"],
    ["ping_server", "completed", null],
    ["ping_server", "completed", null],
    ["delete_server", "denied", "denied"],
    ["delete_server", "completed", null],
  ]);
  expect(history.body.calls.find((c: any) => c.callId === first.body.callId)).toMatchObject({ approvedBy: "admin" });
  expect(executor.requests).toHaveLength(3);
});

/**
 * Sends a raw POST over a socket: with its length declared, or chunked (no length), as a client streaming its body
 * would. As HTTP asks of a client, it watches for an answer while it sends and stops sending once one arrives: a
 * server that refused the body stops reading it soon after, and a client that goes on writing may see its connection
 * reset before it reads the refusal.
 */
function postRaw(path: string, token: string, body: Buffer, framing: "declared" | "chunked"): Promise<{ status: number; body: any }> {
  const url = new URL(path, stack.url);
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  if (framing === "declared") headers["content-length"] = body.length;
  return new Promise((resolve, reject) => {
    let answered = false;
    // A kept-alive connection of its own: after refusing a body the server reads (and drops) the rest for a moment, then
    // closes the connection, so no other request may be sent on it; one sent "Connection: close" would be closed at once.
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const request = httpRequest(url, { method: "POST", headers, agent }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        agent.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      });
    });
    request.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    request.on("close", () => answered || reject(new Error(`the connection to ${url.pathname} closed before toolgate's answer arrived`)));
    void (async () => {
      for (let start = 0; start < body.length && !answered && !request.destroyed; start += 64 * 1024)
        await new Promise<void>((sent) => request.write(body.subarray(start, start + 64 * 1024), () => sent()));
      if (!answered && !request.destroyed) request.end();
    })();
  });
}

test("npm start - a body over 1 MiB is 413 payload_too_large whether its length is declared or it comes chunked; a small chunked body is read", async () => {
  const huge = Buffer.from(JSON.stringify({ name: "big", rolePrompt: "y".repeat(1_200_000), toolGroups: [] }));
  for (const framing of ["declared", "chunked"] as const) {
    const response = await postRaw("/roles", stack.adminToken, huge, framing);
    expect(response.status, framing).toBe(413);
    expect(response.body.error, framing).toBe("payload_too_large");
  }
  const small = await postRaw("/roles", stack.adminToken, Buffer.from(JSON.stringify({ name: "chunked", rolePrompt: "Small.", toolGroups: [] })), "chunked");
  expect(small.status).toBe(201);
  expect(small.body.name).toBe("chunked");
});

test("npm start - an MCP client configured with only the URL and an agent token lists the agent's tools and calls one through the guard", async () => {
  const group = await http("PUT", "/groups/mcp_e2e", stack.adminToken, {
    description: "Tools for the MCP client.",
    executor: { type: "http", url: `${executor.url}/mcp-e2e` },
    tools: [definition("restart_server", "Restart a server.", {}), definition("erase_disk", "Erase a disk.", { dangerous: true })],
  });
  expect(group.status).toBe(201);
  const role = await http("POST", "/roles", stack.adminToken, { name: "mcp-operator", rolePrompt: "Restart servers.", toolGroups: ["mcp_e2e"] });
  const { agent, token } = (await http("POST", "/agents", stack.adminToken, { roleId: role.body.id, name: "mcp-1" })).body;

  const client = new Client({ name: "e2e", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["erase_disk", "restart_server"]);
  const done: any = await client.callTool({ name: "restart_server", arguments: { target: "web-1" } });
  expect(done.content).toEqual([{ type: "text", text: "restart_server web-1" }]);
  const waiting: any = await client.callTool({ name: "erase_disk", arguments: { target: "web-1" } });
  expect(waiting).toMatchObject({ isError: true, _meta: { code: "awaiting_confirmation" } });
  const history = await http("GET", `/agents/${agent.id}/calls`, token);
  expect(history.body.calls.map((call: any) => `${call.tool}:${call.status}`)).toEqual(["erase_disk:awaiting_confirmation", "restart_server:completed"]);
  await client.close();
});

test("npm start - an agent in search mode finds the right tool among GitHub's and calls it, over REST and over /mcp", async () => {
  for (const toolset of ["gh_issues", "gh_pull_requests", "gh_labels", "gh_repositories"])
    expect((await http("PUT", `/groups/${toolset}`, stack.adminToken, githubGroup(toolset, `${executor.url}/github`))).status).toBe(201);
  const role = await http("POST", "/roles", stack.adminToken, {
    name: "search-triager",
    rolePrompt: "Triage issues.",
    toolGroups: ["gh_issues", "gh_pull_requests", "gh_labels", "gh_repositories"],
    toolLoading: "search",
  });
  expect(role.status).toBe(201);
  expect(role.body.toolTokens).toBe(role.body.loadingTokens.searchTools);
  const { agent, token } = (await http("POST", "/agents", stack.adminToken, { roleId: role.body.id, name: "searcher-1" })).body;
  const listed = await http("GET", `/agents/${agent.id}/tools`, token);
  expect(listed.body.tools.map((t: any) => t.function.name)).toEqual(["search_tools", "call_tool"]);

  // REST: search, then call what was found
  const found = await http("POST", `/agents/${agent.id}/calls`, token, { tool: "search_tools", arguments: { query: "leave a comment on issue 12", limit: 3 } });
  expect(found.status).toBe(200);
  const best = JSON.parse(found.body.result.content).tools[0].function.name;
  expect(best).toBe("add_issue_comment");
  const ran = await http("POST", `/agents/${agent.id}/calls`, token, {
    tool: "call_tool",
    arguments: { name: best, arguments: { owner: "octo", repo: "hello", issue_number: 12, body: "On it." } },
  });
  expect(ran.status).toBe(200);
  expect(ran.body.result.content).toBe("add_issue_comment undefined");
  expect(executor.requestsFor("add_issue_comment").at(-1)!.body.arguments).toMatchObject({ issue_number: 12, body: "On it." });

  // MCP: the client lists only the two meta tools and reaches the rest through them
  const client = new Client({ name: "e2e-search", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["call_tool", "search_tools"]);
  const search: any = await client.callTool({ name: "search_tools", arguments: { query: "merge the pull request once checks pass", limit: 3 } });
  expect(search.isError).toBeFalsy();
  const merge = search.structuredContent.tools[0].function.name;
  expect(merge).toBe("merge_pull_request");
  const merged: any = await client.callTool({ name: "call_tool", arguments: { name: merge, arguments: { owner: "octo", repo: "hello", pullNumber: 3 } } });
  expect(merged.isError).toBeFalsy();
  expect(merged.content).toEqual([{ type: "text", text: "merge_pull_request undefined" }]);
  const wrong: any = await client.callTool({ name: "call_tool", arguments: { name: "merge_everything", arguments: {} } });
  expect(wrong).toMatchObject({ isError: true, _meta: { code: "unknown_tool" } });
  await client.close();

  const history = await http("GET", `/agents/${agent.id}/calls`, token);
  expect(history.body.calls.map((call: any) => `${call.tool}:${call.status}`)).toEqual([
    "merge_everything:refused",
    "merge_pull_request:completed",
    "search_tools:completed",
    "add_issue_comment:completed",
    "search_tools:completed",
  ]);
});
