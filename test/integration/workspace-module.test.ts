import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { bindGroups, unbindGroups } from "@toolgate/local/workspace-module/bind";
import { openWorkspace, openWorkspaceSandbox, workspaceModule } from "@toolgate/local/workspace-module/index";
import type { WorkspaceSandbox } from "@toolgate/local/workspace-module/index";
import type { Module } from "@toolgate/module";
import { serveFetch, serveToolgate } from "../support/http-server";
import type { Served, ServedToolgate } from "../support/http-server";
import { ADMIN_TOKEN, api, testToolgate } from "../support/toolgate";
import type { Api } from "../support/toolgate";
import { createAgent, createRole, unique } from "./helpers";

const MODULE_REFUSAL = "The workspace module refused the path";

let toolgate: Toolgate;
let served: ServedToolgate;
let request: Api;
let module: Module;
let sandbox: WorkspaceSandbox;
let moduleServer: Served;
let moduleUrl: string;
let base: string;
let root: string;
let outside: string;
/** toolgate's data directory as `npm start` keeps it, outside the workspace: the admin token in a file. */
let dataDir: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "workspace-module-it-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "the secret\n");
  dataDir = join(outside, ".toolgate");
  await mkdir(dataDir);
  await writeFile(join(dataDir, "admin-token"), "the-admin-token\n");
  await writeFile(join(root, "notes.txt"), "alpha\nbeta\ngamma\n");
  await symlink(join(outside, "secret.txt"), join(root, "to-secret"));
  await symlink(outside, join(root, "to-outside"));

  toolgate = await testToolgate();
  served = await serveToolgate(toolgate);
  request = api(toolgate);
  const workspace = await openWorkspace(root);
  sandbox = await openWorkspaceSandbox(workspace);
  moduleServer = await serveFetch((incoming) => module.fetch(incoming));
  moduleUrl = `${moduleServer.url}/call`;
  module = workspaceModule({ workspace, sandbox, url: moduleUrl, toolgate: { url: served.url } });
});

afterAll(async () => {
  await moduleServer?.close();
  await sandbox?.close();
  await served?.close();
  await rm(base, { recursive: true, force: true });
});

/** toolgate's own rules off: every policy made log-only, so only the module stands between an agent and the machine. */
async function switchOffToolgatesRules() {
  const { policies } = (await request("GET", "/policies")).body as { policies: Array<{ id: string; scope: string; cedar: string; description?: string }> };
  for (const policy of policies) {
    const { id, scope, cedar, description } = policy;
    const put = await request("PUT", `/policies/${id}`, { body: { scope, mode: "log_only", cedar, ...(description ? { description } : {}) } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
}

test("bound as the workspace and command executor, the module runs an agent's calls on the directory; escapes are refused by the module with toolgate's rules off; a call around toolgate is 401", async () => {
  const bound = await bindGroups({ toolgateUrl: served.url, adminToken: ADMIN_TOKEN }, moduleUrl);
  expect(bound.map(({ group, previous }) => [group, previous?.type])).toEqual([
    ["workspace", "client"],
    ["command", "client"],
  ]);
  for (const group of ["workspace", "command"]) expect((await request("GET", `/groups/${group}`)).body.executor).toMatchObject({ type: "http", url: moduleUrl });
  await switchOffToolgatesRules();

  const confined = await createRole(request, { name: unique("dev"), toolGroups: ["workspace", "command"], workspaceRoot: root });
  const unconfined = await createRole(request, { name: unique("dev"), toolGroups: ["workspace", "command"] });
  const agent = await createAgent(request, confined.id);
  const free = await createAgent(request, unconfined.id);
  const callAs = async ({ agent: { id }, token }: typeof agent, tool: string, args: Record<string, unknown>) => {
    const response = await request("POST", `/agents/${id}/calls`, { token, body: { tool, arguments: args } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as { callId: string; status: string; result: { type: string; content: string } };
  };
  const json = (body: { result: { type: string; content: string } }) => {
    expect(body.result.type, body.result.content).toBe("json");
    return JSON.parse(body.result.content);
  };

  expect(json(await callAs(agent, "write_file", { path: "src/hello.txt", content: "hello\nworld\n" }))).toEqual({ path: "src/hello.txt", bytesWritten: 12 });
  expect(await readFile(join(root, "src", "hello.txt"), "utf8")).toBe("hello\nworld\n");
  expect(json(await callAs(agent, "read_file", { path: "notes.txt", offset: 2, limit: 1 }))).toMatchObject({ content: "beta", totalLines: 3, truncated: true });
  const listed = json(await callAs(agent, "list_files", { recursive: true, pattern: "*.txt" }));
  expect(listed.entries.map((entry: { path: string }) => entry.path)).toEqual(["notes.txt", "src/hello.txt"]);
  expect(json(await callAs(agent, "run_command", { command: "cat hello.txt && ls ..", cwd: "src" }))).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^hello\nworld\n/) });
  expect(json(await callAs(agent, "get_workspace_info", {}))).toMatchObject({ root, files: 2 });

  const escapes: Array<[string, Record<string, unknown>]> = [
    ["read_file", { path: "../outside/secret.txt" }],
    ["read_file", { path: "/etc/passwd" }],
    ["read_file", { path: "to-secret" }],
    ["write_file", { path: "to-outside/planted.txt", content: "planted" }],
    ["list_files", { path: "../outside" }],
    ["run_command", { command: "ls", cwd: "../outside" }],
  ];
  for (const caller of [agent, free])
    for (const [tool, args] of escapes) {
      const refused = await callAs(caller, tool, args);
      expect(refused, `${tool} ${JSON.stringify(args)}`).toMatchObject({ status: "error", result: { type: "error", content: expect.stringContaining(MODULE_REFUSAL) } });
      expect(refused.result.content).not.toContain("the secret");
    }
  await expect(stat(join(outside, "planted.txt"))).rejects.toThrow(/ENOENT/);

  // toolgate's own path rule would have refused the `..` read for the confined role: it was log-only, so the module refused it.
  const logged = await callAs(agent, "read_file", { path: "../outside/secret.txt" });
  const record = await request("GET", `/agents/${agent.agent.id}/calls/${logged.callId}`);
  expect(record.body.decision).toMatchObject({ effect: "none", logOnly: { effect: "deny", policies: ["workspace-paths"] } });

  const around = await fetch(moduleUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ callId: "call_forged", tool: "write_file", arguments: { path: "forged.txt", content: "x" }, agentId: agent.agent.id, roleId: confined.id }),
  });
  expect(around.status).toBe(401);
  expect(await around.json()).toMatchObject({ error: "unauthenticated" });
  await expect(stat(join(root, "forged.txt"))).rejects.toThrow(/ENOENT/);

  expect(await unbindGroups({ toolgateUrl: served.url, adminToken: ADMIN_TOKEN }, bound)).toEqual([]);
  for (const group of ["workspace", "command"]) expect((await request("GET", `/groups/${group}`)).body.executor).toEqual({ type: "client" });
});

/** Whether a process whose command line is exactly `sleep <marker>` runs on this machine, seen from outside the sandbox. */
async function sleeping(marker: string): Promise<boolean> {
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    if ((await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")) !== `sleep\0${marker}\0`) continue;
    const line = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (line !== "" && line.slice(line.lastIndexOf(")") + 2)[0] !== "Z") return true;
  }
  return false;
}

const installed = (program: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

test("with every policy switched off, a command line reaches nothing outside the workspace: not toolgate's admin token, not the disk, not toolgate's port, not the network; a build in the workspace runs", async () => {
  const bound = await bindGroups({ toolgateUrl: served.url, adminToken: ADMIN_TOKEN }, moduleUrl);
  await switchOffToolgatesRules();
  // A role without a workspaceRoot: toolgate's path rules have no root to check a path against, so nothing but the sandbox is left.
  const role = await createRole(request, { name: unique("dev"), toolGroups: ["workspace", "command"] });
  const { agent, token } = await createAgent(request, role.id);
  const call = async (tool: string, args: Record<string, unknown>) => {
    const response = await request("POST", `/agents/${agent.id}/calls`, { token, body: { tool, arguments: args } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { result } = response.body as { result: { type: string; content: string } };
    expect(result.type, `${tool} ${JSON.stringify(args)}: ${result.content}`).toBe("json");
    return JSON.parse(result.content);
  };
  const run = (command: string, timeoutMs = 60_000) => call("run_command", { command, timeoutMs }) as Promise<{ exitCode: number | null; stdout: string; stderr: string }>;

  for (const command of [`cat ${join(dataDir, "admin-token")}`, `ls ${dataDir}`, "cat /etc/shadow", "cat /root/.bashrc", `cat ${join(homedir(), ".bashrc")}`, `ls ${process.cwd()}`]) {
    const read = await run(command);
    expect(read.exitCode, `${command}: ${read.stdout}${read.stderr}`).not.toBe(0);
    expect(read.stderr, command).toContain("No such file or directory");
    expect(read.stdout, command).not.toContain("the-admin-token");
  }
  expect(await run("ls -A ~")).toMatchObject({ exitCode: 0, stdout: "" });

  for (const command of [`echo x > ${join(outside, "pwned")}`, `touch /tmp/..${join(outside, "touched")}`, `cp notes.txt ${outside}/`]) {
    const written = await run(command);
    expect(written.exitCode, `${command}: ${written.stderr}`).not.toBe(0);
  }
  for (const name of ["pwned", "touched", "notes.txt"]) await expect(stat(join(outside, name)), name).rejects.toThrow(/ENOENT/);

  expect((await fetch(`${served.url}/health`)).status).toBeLessThan(500);
  const toolgatesPort = await run(`node -e "fetch('${served.url}/health').then(() => console.log('reached'), () => { console.log('refused'); process.exit(3) })"`);
  expect(toolgatesPort).toMatchObject({ exitCode: 3, stdout: "refused\n" });
  const external = await run(`curl -sS -m 10 https://registry.npmjs.org/ || node -e "fetch('https://registry.npmjs.org/').then(() => console.log('reached'), () => { console.log('refused'); process.exit(3) })"`);
  expect(external).toMatchObject({ exitCode: 3, stdout: "refused\n", stderr: expect.stringContaining("Could not resolve host") });

  await call("write_file", { path: "app/package.json", content: JSON.stringify({ name: "app", version: "1.0.0", private: true, scripts: { build: "node build.js" } }) });
  await call("write_file", { path: "app/build.js", content: "const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.writeFileSync('dist/out.txt', `built with node ${process.version}\\n`);\n" });
  const built = await call("run_command", { command: "npm run build", cwd: "app", timeoutMs: 120_000 });
  expect(built, built.stderr).toMatchObject({ exitCode: 0 });
  expect(await readFile(join(root, "app", "dist", "out.txt"), "utf8")).toBe(`built with node ${process.version}\n`);
  if (installed("make")) {
    await call("write_file", { path: "app/Makefile", content: "out/made.txt:\n\tmkdir -p out && echo made > out/made.txt\n" });
    expect(await call("run_command", { command: "make", cwd: "app" })).toMatchObject({ exitCode: 0 });
    expect(await readFile(join(root, "app", "out", "made.txt"), "utf8")).toBe("made\n");
  }

  const marker = `${1000 + Math.random()}`.slice(0, 12);
  expect(await run(`sleep ${marker} > /dev/null 2>&1 & echo started`)).toMatchObject({ exitCode: 0, stdout: "started\n" });
  await expect.poll(() => sleeping(marker)).toBe(false);

  await unbindGroups({ toolgateUrl: served.url, adminToken: ADMIN_TOKEN }, bound);
}, 180_000);
