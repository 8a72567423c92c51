import { afterAll, beforeAll, expect, test } from "vitest";
import { agentOn, callTool, guarded, readCall, unique } from "./helpers";
import type { AgentHandle, Guarded } from "./helpers";

let g: Guarded;
let root: AgentHandle;

beforeAll(async () => {
  g = await guarded();
  const issued = await g.request("POST", "/agents/root/token");
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  root = { agent: issued.body.agent, token: issued.body.token };
});

afterAll(async () => {
  await g?.close();
});

/** A native call that completed: its parsed JSON result. */
async function completed(agent: AgentHandle, toolName: string, args: Record<string, unknown>) {
  const response = await callTool(g.request, agent, toolName, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.status, JSON.stringify(response.body)).toBe("completed");
  expect(response.body.result.type).toBe("json");
  return { callId: response.body.callId as string, value: JSON.parse(response.body.result.content) };
}

/** A native call whose tool failed: 200 with status error, recorded as error. */
async function failed(agent: AgentHandle, toolName: string, args: Record<string, unknown>) {
  const response = await callTool(g.request, agent, toolName, args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.status, JSON.stringify(response.body)).toBe("error");
  expect(response.body.result.type).toBe("error");
  expect((await readCall(g.request, agent.agent.id, response.body.callId)).status).toBe("error");
  return response.body.result as { content: string; type: "error"; metadata?: { code?: string } };
}

test("find_role_by_name - root finds a role by its name", async () => {
  const name = unique("Analyst");
  const created = await g.request("POST", "/roles", { body: { name, rolePrompt: "Analyse.", toolGroups: ["artifact"] } });
  const { value, callId } = await completed(root, "find_role_by_name", { name });
  expect(value).toMatchObject({ id: created.body.id, name, rolePrompt: "Analyse.", toolGroups: ["artifact"] });
  expect(await readCall(g.request, "root", callId)).toMatchObject({ status: "completed", group: "org_management", tool: "find_role_by_name" });
});

test("find_role_by_name - an unknown name is an error result saying so", async () => {
  const result = await failed(root, "find_role_by_name", { name: unique("nobody") });
  expect(result.metadata?.code).toBe("role_not_found");
  expect(result.content).toMatch(/no role/i);
});

test("create_role - root creates a role that POST /roles would create, attributed to root", async () => {
  const name = unique("writer");
  const { value } = await completed(root, "create_role", { name, rolePrompt: "Write docs.", toolGroups: ["artifact", "workspace"] });
  expect(value).toMatchObject({ id: expect.stringMatching(/^rol_/), name, toolGroups: ["artifact", "workspace"], createdBy: "root", version: 1 });
  const stored = await g.request("GET", `/roles/${value.id}`);
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({ name, rolePrompt: "Write docs.", effectiveToolGroups: ["artifact", "workspace"] });
});

test("create_role - an unknown tool group is an error result unknown_tool_group, and no role is created", async () => {
  const name = unique("bad_groups");
  const result = await failed(root, "create_role", { name, rolePrompt: "x", toolGroups: ["artifact", "no_such_group"] });
  expect(result.metadata?.code).toBe("unknown_tool_group");
  expect(result.content).toContain("no_such_group");
  expect((await g.request("GET", `/roles/by-name/${name}`)).status).toBe(404);
});

test("create_role - a taken name (in any case) is an error result role_name_taken", async () => {
  const name = unique("Taken");
  await completed(root, "create_role", { name, rolePrompt: "x" });
  const result = await failed(root, "create_role", { name: name.toLowerCase(), rolePrompt: "y" });
  expect(result.metadata?.code).toBe("role_name_taken");
});

test("create_role - its description and parameters tell the model to choose toolGroups", async () => {
  const tools = await g.request("GET", "/agents/root/tools", { token: root.token });
  expect(tools.status).toBe(200);
  expect(tools.body.toolGroups).toEqual(["org_management"]);
  const createRole = tools.body.tools.find((t: { function: { name: string } }) => t.function.name === "create_role");
  expect(createRole.function.description).toContain("toolGroups");
  expect(createRole.function.parameters.properties.toolGroups.description).toEqual(expect.any(String));
  expect(createRole.function.parameters.required).toEqual(expect.arrayContaining(["name", "rolePrompt"]));
});

test("spawn_agent - creates an active agent in the role, created by root", async () => {
  const role = await g.request("POST", "/roles", { body: { name: unique("worker"), toolGroups: ["artifact"] } });
  const { value } = await completed(root, "spawn_agent", { roleId: role.body.id, name: "worker-1" });
  expect(value.agentId).toMatch(/^agt_/);
  const agent = await g.request("GET", `/agents/${value.agentId}`);
  expect(agent.body).toMatchObject({ id: value.agentId, roleId: role.body.id, name: "worker-1", status: "active", createdBy: "root" });
  expect(agent.body).not.toHaveProperty("tokenVersion");
});

test("spawn_agent - an unknown role is an error result and no agent is made", async () => {
  const result = await failed(root, "spawn_agent", { roleId: "rol_nope" });
  expect(result.metadata?.code).toBe("role_not_found");
});

test("spawn_agent_with_task - the task is the new agent's first message, from root", async () => {
  const role = await g.request("POST", "/roles", { body: { name: unique("reviewer"), toolGroups: ["artifact"] } });
  const task = "Review the design document and report the three biggest risks.";
  const { value } = await completed(root, "spawn_agent_with_task", { roleId: role.body.id, task });
  expect(value.agentId).toMatch(/^agt_/);
  const messages = await g.request("GET", `/agents/${value.agentId}/messages`);
  expect(messages.status, JSON.stringify(messages.body)).toBe(200);
  expect(messages.body.messages).toHaveLength(1);
  expect(messages.body.messages[0]).toMatchObject({ messageId: expect.any(String), from: "root", content: task, createdAt: expect.any(String) });

  const token = await g.request("POST", `/agents/${value.agentId}/token`);
  const own = await g.request("GET", `/agents/${value.agentId}/messages`, { token: token.body.token });
  expect(own.body.messages.map((m: { content: string }) => m.content)).toEqual([task]);
});

test("send_message - delivers to the recipient's messages, oldest first, from the sender", async () => {
  const recipient = await agentOn(g.request, ["artifact"]);
  const first = await completed(root, "send_message", { to: recipient.agent.id, content: "first" });
  const second = await completed(root, "send_message", { to: recipient.agent.id, content: "second" });
  expect(first.value.messageId).toEqual(expect.any(String));
  const messages = await g.request("GET", `/agents/${recipient.agent.id}/messages`, { token: recipient.token });
  expect(messages.body.messages.map((m: { from: string; content: string; messageId: string }) => [m.from, m.content, m.messageId])).toEqual([
    ["root", "first", first.value.messageId],
    ["root", "second", second.value.messageId],
  ]);
});

test("send_message - to an agent that does not exist is an error result", async () => {
  const result = await failed(root, "send_message", { to: "agt_nobody", content: "hello" });
  expect(result.metadata?.code).toBe("agent_not_found");
});

test("terminate_agent - terminates the agent, whose token then stops working", async () => {
  const victim = await agentOn(g.request, ["artifact"]);
  const { value } = await completed(root, "terminate_agent", { agentId: victim.agent.id });
  expect(value).toMatchObject({ agentId: victim.agent.id, status: "terminated" });
  expect((await g.request("GET", `/agents/${victim.agent.id}`)).body.status).toBe("terminated");
  const after = await callTool(g.request, victim, "put_artifact", { content: "x" });
  expect([401, 403]).toContain(after.status);
  const again = await failed(root, "terminate_agent", { agentId: victim.agent.id });
  expect(again.metadata?.code).toBe("agent_terminated");
});

test("terminate_agent - root cannot terminate itself", async () => {
  const result = await failed(root, "terminate_agent", { agentId: "root" });
  expect(result.metadata?.code).toBe("root_agent_fixed");
});

test("root - cannot call anything outside org_management (tool_not_available)", async () => {
  for (const name of ["put_artifact", "read_file", "run_command", "http_request", "console_print"]) {
    const response = await callTool(g.request, root, name, {});
    expect(response.status, name).toBe(403);
    expect(response.body).toMatchObject({ error: "tool_not_available", toolName: name, recoverable: false });
  }
});

test("native tools - invalid arguments are refused 400 by the guard before the tool runs", async () => {
  const response = await callTool(g.request, root, "spawn_agent_with_task", { roleId: "rol_x" });
  expect(response.status).toBe(400);
  expect(response.body.error).toBe("invalid_arguments");
  expect(response.body.details).toEqual([{ path: "task", message: "is required" }]);
  const extra = await callTool(g.request, root, "find_role_by_name", { name: "x", extra: 1 });
  expect(extra.status).toBe(400);
});

test("put_artifact and get_artifact - round trip for an agent whose role has artifact", async () => {
  const agent = await agentOn(g.request, ["artifact"]);
  const content = "# Notes\n\nünïcödé ✓ and 🚀";
  const put = await completed(agent, "put_artifact", { content, name: "notes.md", mimeType: "text/markdown" });
  expect(put.value.artifactId).toMatch(/^art_/);
  const got = await completed(agent, "get_artifact", { artifactId: put.value.artifactId });
  expect(got.value).toEqual({ artifactId: put.value.artifactId, name: "notes.md", mimeType: "text/markdown", content });

  const other = await agentOn(g.request, ["artifact"]);
  const shared = await completed(other, "get_artifact", { artifactId: put.value.artifactId });
  expect(shared.value.content).toBe(content);
});

test("put_artifact - mimeType defaults to text/plain", async () => {
  const agent = await agentOn(g.request, ["artifact"]);
  const put = await completed(agent, "put_artifact", { content: "plain" });
  const got = await completed(agent, "get_artifact", { artifactId: put.value.artifactId });
  expect(got.value).toMatchObject({ mimeType: "text/plain", content: "plain", name: null });
});

test("get_artifact - an unknown id is an error result", async () => {
  const agent = await agentOn(g.request, ["artifact"]);
  const result = await failed(agent, "get_artifact", { artifactId: "art_01HZZZZZZZZZZZZZZZZZZZZZZZ" });
  expect(result.metadata?.code).toBe("artifact_not_found");
  const malformed = await failed(agent, "get_artifact", { artifactId: "../etc/passwd" });
  expect(malformed.content).toMatch(/not an artifact id/);
});

test("put_artifact - an oversized artifact is refused with a clear error naming content and the limit, and nothing is stored", async () => {
  const agent = await agentOn(g.request, ["artifact"]);
  const response = await callTool(g.request, agent, "put_artifact", { content: "x".repeat(100_001) });
  expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(400);
  expect(response.body).toMatchObject({ error: "invalid_arguments", recoverable: true });
  expect(response.body.details).toEqual([{ path: "content", message: expect.stringMatching(/100000/) }]);
  expect(response.body.message).toMatch(/content/);
  const record = await readCall(g.request, agent.agent.id, response.body.callId);
  expect(record.status).toBe("refused");
});

test("put_artifact - content within the advertised maxLength (100000 characters) is accepted, astral characters included", async () => {
  const agent = await agentOn(g.request, ["artifact"]);
  const content = "🚀".repeat(60_000);
  const put = await completed(agent, "put_artifact", { content });
  const got = await completed(agent, "get_artifact", { artifactId: put.value.artifactId });
  expect(got.value.content).toBe(content);
});

test("put_artifact - an agent whose role lacks artifact cannot store artifacts", async () => {
  const agent = await agentOn(g.request, ["workspace"]);
  const response = await callTool(g.request, agent, "put_artifact", { content: "x" });
  expect(response.status).toBe(403);
  expect(response.body.error).toBe("tool_not_available");
});
