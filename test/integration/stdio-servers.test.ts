import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, Progress } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { bundleStdioServer, everythingExecutor, testServerExecutor } from "../support/stdio-programs";
import { waitFor } from "../support/wait";

const SECRET = "stdio-secret-value-7c1f0a9e42";
let base: string;
let stdioDir: string;
let serverDir: string;
let stack: LocalProcess;
let agent: { id: string; token: string };

type Answer = { status: number; body: any };
const admin = (method: string, path: string, body?: unknown): Promise<Answer> => stack.request(method, path, stack.adminToken, body);
const call = (tool: string, args: Record<string, unknown> = {}) => stack.request("POST", `/agents/${agent.id}/calls`, agent.token, { tool, arguments: args });
const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const definition = (name: string) => ({ type: "function", function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties: {} } } });

async function mcpClient() {
  const client = new Client({ name: "stdio-test-agent", version: "1.0.0" }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => (asked.push(`elicitation: ${request.params.message}`), { action: "decline" }));
  client.setRequestHandler("sampling/createMessage", async () => (asked.push("sampling"), { model: "test-model", role: "assistant", content: { type: "text", text: "sampled" } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
  return { client, asked };
}

/** The sandboxes running a group's program: bwrap's processes started by toolgate whose command lines name the group's own directory. */
async function sandboxesOf(group: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    const parent = Number((await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")).split(") ")[1]?.split(" ")[1]);
    if (cmdline[0]?.endsWith("bwrap") && cmdline.includes(join(stdioDir, group)) && parent === stack.child.pid) found.push(Number(pid));
  }
  return found;
}

async function putGroup(id: string, executor: Record<string, unknown>, tools?: unknown[]) {
  return admin("PUT", `/groups/${id}`, { description: `The stdio server ${id}.`, executor, ...(tools ? { tools } : {}) });
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "stdio-servers-it-")));
  stdioDir = join(base, "stdio");
  serverDir = await bundleStdioServer(join(base, "server"));
  stack = await startLocalProcess(join(base, "data"), { TOOLGATE_STDIO_DIR: stdioDir, TOOLGATE_SECRET_STDIO_TOKEN: SECRET });
  const role = await admin("POST", "/roles", { name: "stdio-user", rolePrompt: "Use the servers.", toolGroups: null });
  const created = await admin("POST", "/agents", { roleId: role.body.id });
  agent = { id: created.body.agent.id, token: created.body.token };
});

afterAll(async () => {
  await stack?.stop();
  await rm(base, { recursive: true, force: true });
});

/** A long operation's arguments made short, so every tool runs within a test. */
const SHORT = { duration: 1, steps: 2 };

/** Arguments every required property of a schema accepts: its first enum value, its default, or a value of its type; durations short. */
function argumentsFor(schema: { properties?: Record<string, any>; required?: string[] }) {
  const valueOf = (property: any) => property.enum?.[0] ?? property.default ?? (property.format === "uri" ? "https://example.com/" : undefined) ?? ({ number: 2, integer: 2, boolean: true, array: [], object: {} } as Record<string, unknown>)[property.type] ?? "toolgate";
  const short = Object.entries(SHORT).filter(([name]) => name in (schema.properties ?? {}));
  return { ...Object.fromEntries((schema.required ?? []).map((name) => [name, valueOf(schema.properties?.[name] ?? {})])), ...Object.fromEntries(short) };
}

test("stdio group - server-everything is imported from its tools/list by a process started in its sandbox", async () => {
  const registered = await putGroup("everything", everythingExecutor({ toolPrefix: "ev" }));
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const names = registered.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
  expect(names).toEqual(expect.arrayContaining(["ev_echo", "ev_get-sum", "ev_trigger-long-running-operation", "ev_get-tiny-image", "ev_get-structured-content"]));
  expect(await sandboxesOf("everything")).toHaveLength(1);
});

test("stdio group - every tool server-everything lists runs over REST, through the one warm process of the import", async () => {
  const registered = await admin("GET", "/groups/everything");
  const [pid] = await sandboxesOf("everything");
  expect(pid).toBeGreaterThan(0);

  expect((await call("ev_echo", { message: "hello over stdio" })).body.result.content).toBe("Echo: hello over stdio");
  expect((await call("ev_get-sum", { a: 2, b: 3 })).body.result.content).toContain("5");
  const people = new Set(["ev_trigger-elicitation-request", "ev_trigger-url-elicitation", "ev_trigger-sampling-request"]);
  for (const tool of registered.body.tools as Array<{ function: { name: string; parameters: any } }>) {
    if (people.has(tool.function.name)) continue;
    const answer = await call(tool.function.name, argumentsFor(tool.function.parameters));
    expect(answer.status, `${tool.function.name}: ${JSON.stringify(answer.body)}`).toBe(200);
    expect(answer.body.status, tool.function.name).toMatch(/^(completed|error)$/);
  }
  expect(await sandboxesOf("everything")).toEqual([pid]);
});

test("stdio group - server-everything's resources and prompts are imported with its tools, read and got through the guard on the same process, each recorded", async () => {
  const registered = await admin("GET", "/groups/everything");
  expect(registered.body.offers.resources.length).toBeGreaterThan(0);
  expect(registered.body.offers.prompts.map((prompt: { name: string }) => prompt.name)).toContain("ev_simple-prompt");
  const [pid] = await sandboxesOf("everything");
  const listed = await stack.request("GET", `/agents/${agent.id}/resources`, agent.token);
  const resource = listed.body.resources[0] as { uri: string };
  expect(resource.uri).toMatch(/^toolgate:\/\/everything\//);
  const read = await stack.request("GET", `/agents/${agent.id}/resources/read?uri=${encodeURIComponent(resource.uri)}`, agent.token);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.body.contents[0].uri).toBe(resource.uri.slice("toolgate://everything/".length));
  const prompt = await stack.request("POST", `/agents/${agent.id}/prompts/ev_simple-prompt`, agent.token, { arguments: {} });
  expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
  expect(prompt.body.messages.length).toBeGreaterThan(0);
  const history = await stack.request("GET", `/agents/${agent.id}/calls?limit=2`, agent.token);
  expect(history.body.calls.map((record: { kind: string; status: string }) => [record.kind, record.status])).toEqual([["prompt", "completed"], ["resource", "completed"]]);
  expect(await sandboxesOf("everything")).toEqual([pid]);
});

test("stdio group - over /mcp every tool runs, a long call's progress reaches the agent's client, and the server's questions reach it", async () => {
  const { client, asked } = await mcpClient();
  try {
    const { tools } = await client.listTools();
    const everything = tools.filter((tool) => tool.name.startsWith("ev_"));
    expect(everything.length).toBeGreaterThan(10);
    for (const tool of everything) {
      const result = (await client.callTool({ name: tool.name, arguments: argumentsFor(tool.inputSchema) })) as CallToolResult;
      expect(result._meta?.code, `${tool.name}: ${JSON.stringify(result)}`).toBeUndefined();
    }
    expect(asked.some((question) => question.startsWith("elicitation"))).toBe(true);
    expect(asked).toContain("sampling");

    const progress: Progress[] = [];
    const long = await client.callTool({ name: "ev_trigger-long-running-operation", arguments: { duration: 2, steps: 4 } }, { onprogress: (update) => void progress.push(update) });
    expect(textOf(long)).toContain("Long running operation completed");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((update) => update.progress)).toEqual([...progress.map((update) => update.progress)].sort((a, b) => a - b));
    expect(progress.every((update) => update.total === 4)).toBe(true);
  } finally {
    await client.close();
  }
});

test("stdio group - a process killed answers executor_failed at once while it waits to start again, then the group works again in a new process", async () => {
  const [killed] = await sandboxesOf("everything");
  process.kill(killed!, "SIGKILL");
  const during = await call("ev_echo", { message: "too soon" });
  expect(during.status).toBe(502);
  expect(during.body).toMatchObject({ error: "executor_failed" });
  expect(during.body.message).toMatch(/stdio MCP server of the group "everything" ended/);
  const answers: string[] = [];
  const again = await waitFor(async () => {
    const answer = await call("ev_echo", { message: `back ${answers.length}` });
    answers.push(JSON.stringify(answer.body));
    return answer.status === 200 ? answer : undefined;
  }, "the restarted server to answer", 20_000, 250).catch((error: Error) => {
    throw new Error(`${error.message}: ${answers.slice(-3).join("\n")}`);
  });
  expect(again.body.result.content).toMatch(/^Echo: back \d+$/);
  const [restarted] = await sandboxesOf("everything");
  expect(restarted).toBeGreaterThan(0);
  expect(restarted).not.toBe(killed);
});

test("stdio group - unregistering the group stops its process", async () => {
  expect(await sandboxesOf("everything")).toHaveLength(1);
  expect((await admin("DELETE", "/groups/everything")).status).toBe(204);
  await waitFor(async () => ((await sandboxesOf("everything")).length === 0 ? true : undefined), "the group's process to stop", 15_000);
});

test("stdio group - a program that exits at once, or writes what is not JSON-RPC, fails its call with executor_failed, and nothing else", async () => {
  expect((await putGroup("exits", testServerExecutor(serverDir, "exit-at-once"), [definition("exits_read")])).status).toBe(201);
  expect((await putGroup("babbles", testServerExecutor(serverDir, "garbage"), [definition("babbles_read")])).status).toBe(201);
  expect((await putGroup("steady", testServerExecutor(serverDir, "serve", { toolPrefix: "steady" }))).status).toBe(201);

  const started = Date.now();
  const exits = await call("exits_read");
  expect(exits.status).toBe(502);
  expect(exits.body.error).toBe("executor_failed");
  expect(exits.body.message).toContain("exiting at once, as asked");
  const babbles = await call("babbles_read");
  expect(babbles.status).toBe(502);
  expect(babbles.body.message).toContain("something other than MCP's JSON-RPC");
  expect(Date.now() - started).toBeLessThan(15_000);

  const midCall = await call("steady_garbage");
  expect(midCall.status).toBe(502);
  expect(midCall.body.message).toMatch(/something other than MCP's JSON-RPC .* during the call/);
  let tries = 0;
  const ended = await waitFor(async () => {
    const answer = await call("steady_where", tries++ % 2 ? {} : { again: true });
    return answer.status === 200 ? answer : undefined;
  }, "the steady server to answer again", 20_000, 250);
  expect(JSON.parse(ended.body.result.content).cwd).toBe(serverDir);

  const imported = await putGroup("exits-import", testServerExecutor(serverDir, "exit-at-once"));
  expect(imported.status).toBe(502);
  expect(imported.body).toMatchObject({ error: "mcp_import_failed" });
});

test("stdio group - the program sees none of toolgate's data dir, even inside the directory it is shown, starts in its cwd with its group's HOME, and gets none of toolgate's variables", async () => {
  const dataDir = join(base, "data");
  expect((await putGroup("peek", testServerExecutor(serverDir, "serve", { toolPrefix: "peek" }))).status).toBe(201);
  expect((await call("peek_read_path", { path: join(dataDir, "admin-token") })).body.result.content).toBe("refused: ENOENT");
  const where = JSON.parse((await call("peek_where")).body.result.content);
  expect(where).toMatchObject({ cwd: serverDir, home: join(stdioDir, "peek") });
  expect(where.variables.filter((name: string) => /^TOOLGATE_|SECRET|TOKEN/.test(name))).toEqual([]);

  await writeFile(join(base, "shown.txt"), "a file beside the data dir");
  expect((await putGroup("wide", { type: "stdio", command: "node", args: ["server/stdio-server.mjs"], cwd: base, toolPrefix: "wide" })).status).toBe(201);
  expect((await call("wide_read_path", { path: join(base, "shown.txt") })).body.result.content).toBe("read: a file beside the data dir");
  expect((await call("wide_read_path", { path: join(dataDir, "admin-token") })).body.result.content).toBe("refused: ENOENT");

  const inData = await putGroup("in-data", { type: "stdio", command: "node", cwd: dataDir, toolPrefix: "indata" }, [definition("indata_x")]);
  expect(inData.status).toBe(201);
  const refused = await call("indata_x");
  expect(refused.status).toBe(502);
  expect(refused.body.message).toContain("lies inside toolgate's data dir");
});

test("stdio group - the program reaches no network unless the group allows hosts, and then only those", async () => {
  expect((await call("peek_reach", { host: "registry.npmjs.org" })).body.result.content).toMatch(/^refused/);
  expect((await putGroup("online", testServerExecutor(serverDir, "serve", { toolPrefix: "online", allowHosts: ["registry.npmjs.org"] }))).status).toBe(201);
  expect((await call("online_reach", { host: "registry.npmjs.org" })).body.result.content).toBe("reached: tunnel open");
  expect((await call("online_reach", { host: "example.com" })).body.result.content).toMatch(/^refused: the proxy answered 403/);
});

test("stdio group - a secret reaches the program only through env, and never appears in a record, an answer or the log", async () => {
  const literal = await putGroup("leaky", testServerExecutor(serverDir, "serve", { env: { API_TOKEN: "plain-value" } }), [definition("leaky_x")]);
  expect(literal.status).toBe(400);
  expect(literal.body).toMatchObject({ error: "invalid_group_def" });
  const inArgs = await putGroup("leaky", { type: "stdio", command: "node", args: ["server.mjs", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"] }, [definition("leaky_x")]);
  expect(inArgs.status).toBe(400);
  expect(inArgs.body.message).toContain("args.2");

  expect((await putGroup("secretive", testServerExecutor(serverDir, "serve", { toolPrefix: "secretive", env: { STDIO_TOKEN: { secret: "STDIO_TOKEN" } } }))).status).toBe(201);
  const answer = await call("secretive_env", { name: "STDIO_TOKEN" });
  expect(answer.body.result.content).toBe("[REDACTED]");
  const record = await stack.request("GET", `/agents/${agent.id}/calls/${answer.body.callId}`, agent.token);
  const group = await admin("GET", "/groups/secretive");
  await waitFor(() => (stack.output().includes("stdio-server: STDIO_TOKEN is") ? true : undefined), "the program's standard error in the log");
  expect(stack.output()).toMatch(/"group":"secretive"/);
  for (const shown of [JSON.stringify(answer.body), JSON.stringify(record.body), JSON.stringify(group.body), stack.output()]) expect(shown).not.toContain(SECRET);
});
