import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Toolgate } from "@toolgate/core/toolgate";
import { bindGroups, unbindGroups } from "@toolgate/local/workspace-module/bind";
import { openWorkspace, workspaceModule } from "@toolgate/local/workspace-module/index";
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
let moduleServer: Served;
let moduleUrl: string;
let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "workspace-module-it-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "the secret\n");
  await writeFile(join(root, "notes.txt"), "alpha\nbeta\ngamma\n");
  await symlink(join(outside, "secret.txt"), join(root, "to-secret"));
  await symlink(outside, join(root, "to-outside"));

  toolgate = await testToolgate();
  served = await serveToolgate(toolgate);
  request = api(toolgate);
  const workspace = await openWorkspace(root);
  moduleServer = await serveFetch((incoming) => module.fetch(incoming));
  moduleUrl = `${moduleServer.url}/call`;
  module = workspaceModule({ workspace, url: moduleUrl, toolgate: { url: served.url } });
});

afterAll(async () => {
  await moduleServer?.close();
  await served?.close();
  await rm(base, { recursive: true, force: true });
});

/** toolgate's own rules off: every shipped policy made log-only, so only the module stands between an agent and the disk. */
async function switchOffToolgatesRules() {
  const { policies } = (await request("GET", "/policies")).body as { policies: Array<{ id: string; shipped?: boolean; scope: string; cedar: string; description?: string }> };
  for (const policy of policies.filter((one) => one.shipped)) {
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
