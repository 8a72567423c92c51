import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishModuleEvent } from "../support/events";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runToExit, startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { waitFor } from "../support/wait";

async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.replaceAll("\0", " ")}`);
  }
  return found;
}


const openTab = {
  type: "function",
  function: {
    name: "open_tab",
    description: "Open a browser tab at a URL.",
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
};

describe("npm start", () => {
  let dataDir: string;
  let stack: LocalProcess;
  let executor: Executor;
  const http = (method: string, path: string, token: string, body?: unknown) => stack.request(method, path, token, body);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "toolgate-e2e-"));
    executor = await startExecutor(({ body }) => ({ body: { content: `opened ${body.arguments.url}`, type: "text" } }));
    stack = await startLocalProcess(dataDir);
  });

  afterAll(async () => {
    await stack?.stop("SIGTERM");
    await executor?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("local stack - a module loaded through EventBridge is visible to an agent and its tool runs through the guard", async () => {
    expect(stack.output()).toContain("curl");
    expect(stack.output()).toContain("export TOOLGATE_ADMIN_TOKEN=$(cat ");
    expect(stack.output()).not.toContain(stack.adminToken);
    const sent = await publishModuleEvent(stack, "module.loaded", {
      module: "chrome",
      version: 1,
      description: "Chrome browser control",
      tools: [openTab],
      executor: { type: "http", url: executor.url },
    });
    expect(sent.FailedEntryCount).toBe(0);

    const module = await waitFor(async () => {
      const { body } = await http("GET", "/modules/chrome", stack.adminToken);
      return body?.status === "loaded" ? body : undefined;
    }, "the module to load");
    expect(module).toMatchObject({ module: "chrome", version: 1, groupId: "chrome" });

    const role = await http("POST", "/roles", stack.adminToken, { name: "browser tester", rolePrompt: "Test pages.", toolGroups: ["chrome"] });
    expect(role.status).toBe(201);
    const created = await http("POST", "/agents", stack.adminToken, { roleId: role.body.id });
    expect(created.status).toBe(201);
    const { agent, token } = created.body;

    const tools = await http("GET", `/agents/${agent.id}/tools`, token);
    expect(tools.status).toBe(200);
    expect(tools.body.tools).toEqual([{ type: "function", function: openTab.function }]);

    const call = await http("POST", `/agents/${agent.id}/calls`, token, { tool: "open_tab", arguments: { url: "https://example.com" } });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ status: "completed", result: { content: "opened https://example.com", type: "text" } });
    expect(executor.requests.map((request) => request.body)).toEqual([
      { callId: call.body.callId, tool: "open_tab", arguments: { url: "https://example.com" }, agentId: agent.id, roleId: role.body.id },
    ]);

    const refused = await http("POST", `/agents/${agent.id}/calls`, token, { tool: "run_command", arguments: { command: "ls" } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "tool_not_available", toolName: "run_command" });

    const history = await http("GET", `/agents/${agent.id}/calls`, token);
    expect(history.body.calls.map((c: { status: string }) => c.status)).toEqual(["refused", "completed"]);
  });

  test("local stack - SIGTERM stops DynamoDB Local too, and a restart keeps every record, the admin token and the local AWS key pair", async () => {
    const role = await http("POST", "/roles", stack.adminToken, { name: "survivor", rolePrompt: "Persist." });
    expect(role.status).toBe(201);
    expect(await processesMentioning(dataDir)).not.toEqual([]);

    const { accessKeyId, secretAccessKey } = stack.awsCredentials;
    expect(await stack.stop("SIGTERM")).toBe(0);
    expect(await processesMentioning(dataDir)).toEqual([]);

    stack = await startLocalProcess(dataDir);
    expect((await readFile(join(dataDir, "admin-token"), "utf8")).trim()).toBe(stack.adminToken);
    expect(stack.awsCredentials).toMatchObject({ accessKeyId, secretAccessKey });
    expect(stack.output()).toContain(`AWS keys:    read from ${join(dataDir, "local-aws-credentials.json")}`);
    const again = await http("GET", `/roles/by-name/survivor`, stack.adminToken);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(role.body.id);
    const module = await http("GET", "/modules/chrome", stack.adminToken);
    expect(module.body.status).toBe("loaded");
  });

  test("local stack - after the runner is killed with SIGKILL, the next start stops the DynamoDB Local it left and keeps the data", async () => {
    const role = await http("POST", "/roles", stack.adminToken, { name: "after kill", rolePrompt: "Persist." });
    expect(role.status).toBe(201);
    expect(await stack.stop("SIGKILL")).toBe(null);
    const leftBehind = await processesMentioning(join(dataDir, "dynamodb"));
    expect(leftBehind).toHaveLength(1);

    stack = await startLocalProcess(dataDir);
    const running = await processesMentioning(join(dataDir, "dynamodb"));
    expect(running).toHaveLength(1);
    expect(running[0]!.split(":")[0]).not.toBe(leftBehind[0]!.split(":")[0]);
    expect((await http("GET", "/roles/by-name/after kill", stack.adminToken)).body.id).toBe(role.body.id);
  });

  test("local stack - a second instance with its own PORT and data dir runs beside the first", async () => {
    const otherDir = await mkdtemp(join(tmpdir(), "toolgate-e2e-other-"));
    const other = await startLocalProcess(otherDir, { TOOLGATE_ADMIN_TOKEN: "second-instance-admin-token" });
    try {
      expect(other.port).not.toBe(stack.port);
      const groups = await fetch(`${other.url}/groups`, { headers: { authorization: "Bearer second-instance-admin-token" } }).then((r) => r.json() as Promise<any>);
      expect(groups.groups.map((g: { id: string }) => g.id)).not.toContain("chrome");
      const first = await http("GET", "/groups/chrome", stack.adminToken);
      expect(first.status).toBe(200);
    } finally {
      expect(await other.stop("SIGINT")).toBe(0);
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  test("local stack - without Java it says what to install instead of crashing", async () => {
    const { code, output } = await runToExit({ PATH: "/nonexistent", TOOLGATE_IN_MEMORY: "1", PORT: "0" });
    expect(code).toBe(1);
    expect(output).toContain("needs Java 17 or newer");
    expect(output).toContain("apt-get install");
    expect(output).not.toMatch(/\n\s+at /);
  });
});
