import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CallSigner } from "@toolgate/core/executor";
import { builtinGroups } from "@toolgate/core/builtin/groups";
import { openWorkspace, openWorkspaceSandbox, workspaceModule } from "./index";
import type { Workspace, WorkspaceSandbox } from "./index";
import { MAX_LINE_CHARS, MAX_READ_BYTES } from "./read-file";
import { OUTPUT_HALF_BYTES, runSandboxed } from "./run-command";

const MODULE_URL = "http://127.0.0.1:8790/call";
const signer = new CallSigner("workspace-module-test-key-0123456789-0123");
const keys = createLocalJWKSet(signer.jwks());

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;
let sandbox: WorkspaceSandbox;
let module: ReturnType<typeof workspaceModule>;
let calls = 0;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "workspace-module-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "the secret\n");
  await writeFile(join(root, "notes.txt"), "one\ntwo\nthree\nfour\nfive\n");
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(root, "src", "deep", "b.ts"), "export const b = 2;\n");
  await writeFile(join(root, "src", "deep", "c.js"), "module.exports = 3;\n");
  await writeFile(join(root, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  await symlink(join(outside, "secret.txt"), join(root, "to-secret"));
  await symlink(outside, join(root, "to-outside"));
  workspace = await openWorkspace(root);
  sandbox = await openWorkspaceSandbox(workspace);
  module = workspaceModule({ workspace, sandbox, url: MODULE_URL, toolgate: { keys } });
});

afterAll(async () => {
  await sandbox?.close();
  await rm(base, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>, options: { timeoutMs?: number; token?: string | null } = {}) {
  const body = { callId: `call_${++calls}`, tool, arguments: args, agentId: "agt_1", roleId: "rol_1" };
  const token = options.token === undefined ? await signer.sign({ ...body, audience: MODULE_URL, timeoutMs: options.timeoutMs ?? 10_000 }) : options.token;
  const response = await module.fetch(
    new Request(MODULE_URL, { method: "POST", headers: { "content-type": "application/json", ...(token ? { "toolgate-call": token } : {}) }, body: JSON.stringify(body) }),
  );
  const answer = (await response.json()) as { type: string; content: string; error?: string };
  return { status: response.status, type: answer.type, text: answer.content, json: answer.type === "json" ? JSON.parse(answer.content) : undefined, answer };
}

/**
 * Whether a process whose command line holds `marker` runs on this machine, seen from outside the sandbox (a pid
 * written inside it is its own namespace's; a zombie waiting for its parent to reap it does not run).
 */
async function running(marker: string): Promise<boolean> {
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (!commandLine.split("\0").includes(marker)) continue;
    const line = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (line !== "" && line.slice(line.lastIndexOf(")") + 2)[0] !== "Z") return true;
  }
  return false;
}

/** A sleep of about 1000 s whose command line no other process has. */
const uniqueSleep = () => `${1000 + Math.random()}`.slice(0, 12);

test("the module's tools are toolgate's built-in ones exactly: names, descriptions, parameters and policies", () => {
  const builtin = builtinGroups()
    .filter((group) => group.id === "workspace" || group.id === "command")
    .flatMap((group) => group.tools);
  const served = module.definitions().tools;
  expect(served.map((tool) => tool.function.name).sort()).toEqual(builtin.map((tool) => tool.function.name).sort());
  for (const tool of served) expect(tool, tool.function.name).toEqual(builtin.find((one) => one.function.name === tool.function.name));
});

test("a request without toolgate's token is 401 and runs nothing", async () => {
  const refused = await call("write_file", { path: "unsigned.txt", content: "x" }, { token: null });
  expect(refused).toMatchObject({ status: 401, answer: { error: "unauthenticated" } });
  await expect(stat(join(root, "unsigned.txt"))).rejects.toThrow(/ENOENT/);
});

test("read_file - the requested lines with the total line count, offset, limit and whether more follow", async () => {
  expect((await call("read_file", { path: "notes.txt" })).json).toEqual({ path: "notes.txt", content: "one\ntwo\nthree\nfour\nfive", offset: 1, limit: 2000, lines: 5, totalLines: 5, truncated: false });
  expect((await call("read_file", { path: "notes.txt", offset: 2, limit: 2 })).json).toEqual({ path: "notes.txt", content: "two\nthree", offset: 2, limit: 2, lines: 2, totalLines: 5, truncated: true });
  expect((await call("read_file", { path: "./src/../notes.txt", offset: 5 })).json).toMatchObject({ content: "five", truncated: false });
  expect(await call("read_file", { path: "missing.txt" })).toMatchObject({ type: "error", text: '"missing.txt" does not exist in the workspace.' });
  expect(await call("read_file", { path: "src" })).toMatchObject({ type: "error", text: expect.stringContaining("is a directory") });
  expect(await call("read_file", { path: "image.bin" })).toMatchObject({ type: "error", text: expect.stringContaining("not a text file") });
  await writeFile(join(root, "long.txt"), `${"x".repeat(MAX_LINE_CHARS * 3)}\r\nshort\r\n`);
  expect((await call("read_file", { path: "long.txt" })).json).toMatchObject({ content: `${"x".repeat(MAX_LINE_CHARS)}\nshort`, lines: 2, totalLines: 2, truncated: true });
  expect((await call("read_file", { path: "long.txt", offset: 2 })).json).toMatchObject({ content: "short", truncated: false });
  await writeFile(join(root, "many.txt"), `${"y".repeat(99)}\n`.repeat(5000));
  const many = (await call("read_file", { path: "many.txt", limit: 10_000 })).json;
  expect(many).toMatchObject({ totalLines: 5000, truncated: true, lines: Math.floor(MAX_READ_BYTES / 100) });
  expect((await call("read_file", { path: "many.txt", offset: many.lines + 1, limit: 10_000 })).json).toMatchObject({ lines: 5000 - many.lines, truncated: false });
  expect(await call("read_file", { path: "notes.txt", extra: 1 })).toMatchObject({ type: "error", text: expect.stringContaining("not valid") });
});

test("read_file - escapes are refused by the module, naming the path: .., an absolute path, a symbolic link to a file outside", async () => {
  for (const path of ["../outside/secret.txt", "/etc/passwd", join(outside, "secret.txt"), "to-secret", "to-outside/secret.txt"]) {
    const refused = await call("read_file", { path });
    expect(refused, path).toMatchObject({ status: 200, type: "error", text: expect.stringContaining(`The workspace module refused the path ${JSON.stringify(path)}`) });
    expect(refused.text).not.toContain("the secret");
  }
});

test("write_file - writes the whole content, creating parents, and answers the path and bytes written; writes that leave the root are refused", async () => {
  expect((await call("write_file", { path: "out/new/é.txt", content: "héllo\n" })).json).toEqual({ path: "out/new/é.txt", bytesWritten: 7 });
  expect(await readFile(join(root, "out", "new", "é.txt"), "utf8")).toBe("héllo\n");
  expect((await call("write_file", { path: "out/new/é.txt", content: "" })).json).toEqual({ path: "out/new/é.txt", bytesWritten: 0 });
  for (const path of ["../escaped.txt", join(base, "escaped.txt"), "to-outside/escaped.txt", "to-outside/new/escaped.txt", "to-secret"]) {
    expect(await call("write_file", { path, content: "pwned" }), path).toMatchObject({ type: "error", text: expect.stringContaining("The workspace module refused the path") });
  }
  await expect(stat(join(base, "escaped.txt"))).rejects.toThrow(/ENOENT/);
  await expect(stat(join(outside, "escaped.txt"))).rejects.toThrow(/ENOENT/);
  await expect(stat(join(outside, "new"))).rejects.toThrow(/ENOENT/);
  expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("the secret\n");
  expect(await call("write_file", { path: "src", content: "x" })).toMatchObject({ type: "error", text: '"src" is a directory, not a file.' });
});

test("list_files - entries with path, type, size and mtime; recursive with a glob; symbolic links listed, not followed", async () => {
  const top = (await call("list_files", {})).json;
  expect(top).toMatchObject({ path: ".", recursive: false, truncated: false });
  expect(top.entries.map((entry: { path: string; type: string }) => `${entry.path}:${entry.type}`)).toEqual(
    expect.arrayContaining(["notes.txt:file", "src:directory", "to-outside:symlink", "to-secret:symlink"]),
  );
  const notes = top.entries.find((entry: { path: string }) => entry.path === "notes.txt");
  expect(notes).toEqual({ path: "notes.txt", type: "file", size: 24, mtime: (await stat(join(root, "notes.txt"))).mtime.toISOString() });

  const typescript = (await call("list_files", { path: "src", recursive: true, pattern: "**/*.ts" })).json;
  expect(typescript).toMatchObject({ path: "src", recursive: true, pattern: "**/*.ts", truncated: false });
  expect(typescript.entries.map((entry: { path: string }) => entry.path)).toEqual(["src/a.ts", "src/deep/b.ts"]);
  const everything = (await call("list_files", { recursive: true })).json.entries.map((entry: { path: string }) => entry.path);
  expect(everything).toContain("src/deep/c.js");
  expect(everything.some((path: string) => path.includes("secret.txt"))).toBe(false);
  expect(await call("list_files", { path: "to-outside" })).toMatchObject({ type: "error", text: expect.stringContaining("The workspace module refused the path") });
  expect(await call("list_files", { path: "notes.txt" })).toMatchObject({ type: "error", text: expect.stringContaining("is not a directory") });
});

test("get_workspace_info - the root and summary facts: files, directories, links, total size, the top level", async () => {
  const info = (await call("get_workspace_info", {})).json;
  expect(info).toMatchObject({ root, symlinks: 2, complete: true, shell: "/bin/sh" });
  expect(info.files).toBeGreaterThanOrEqual(5);
  expect(info.directories).toBeGreaterThanOrEqual(2);
  expect(info.totalBytes).toBeGreaterThan(24);
  expect(info.topLevel).toEqual(expect.arrayContaining([{ path: "src", type: "directory" }, { path: "notes.txt", type: "file" }]));
});

test("run_command - exit code, stdout and stderr; cwd relative to the root and confined; toolgate's variables are not passed on", async () => {
  expect((await call("run_command", { command: "echo out; echo err >&2; exit 3" })).json).toEqual({ exitCode: 3, stdout: "out\n", stderr: "err\n", truncated: false, timedOut: false });
  expect((await call("run_command", { command: "pwd", cwd: "src/deep" })).json).toMatchObject({ exitCode: 0, stdout: `${join(root, "src", "deep")}\n` });
  expect((await call("run_command", { command: "pwd" })).json).toMatchObject({ stdout: `${root}\n` });
  for (const cwd of ["..", "/tmp", "to-outside"])
    expect(await call("run_command", { command: "pwd", cwd }), cwd).toMatchObject({ type: "error", text: expect.stringContaining("The workspace module refused the path") });
  expect(await call("run_command", { command: "pwd", cwd: "notes.txt" })).toMatchObject({ type: "error", text: expect.stringContaining("not a directory") });
  process.env.TOOLGATE_ADMIN_TOKEN = "must-not-leak";
  process.env.SOME_API_KEY = "must-not-leak-either";
  try {
    expect((await call("run_command", { command: "env" })).json.stdout).not.toContain("must-not-leak");
  } finally {
    delete process.env.TOOLGATE_ADMIN_TOKEN;
    delete process.env.SOME_API_KEY;
  }
});

test("run_command - long output keeps its start and its end; a command past timeoutMs is stopped with its whole process group", async () => {
  const long = (await call("run_command", { command: `head -c ${OUTPUT_HALF_BYTES * 3} /dev/zero | tr '\\0' a; echo END` })).json;
  expect(long).toMatchObject({ exitCode: 0, truncated: true });
  expect(long.stdout).toMatch(/^a+\n\[\.\.\. \d+ bytes of output cut \.\.\.\]\na+END\n$/);
  expect(long.stdout.length).toBeLessThan(OUTPUT_HALF_BYTES * 2 + 100);

  const started = Date.now();
  const seconds = uniqueSleep();
  const stopped = (await call("run_command", { command: `sleep ${seconds} & echo started; wait`, timeoutMs: 300 })).json;
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(stopped).toMatchObject({ exitCode: null, signal: "SIGTERM", stdout: "started\n", timedOut: true });
  await expect.poll(() => running(seconds)).toBe(false);
});

test("run_command - when toolgate stops waiting (the call's deadline), the process group is killed and the call ends as timed out", async () => {
  const started = Date.now();
  const seconds = uniqueSleep();
  const abandoned = call("run_command", { command: `sleep ${seconds} & wait` }, { timeoutMs: 1_000 });
  await expect.poll(() => running(seconds)).toBe(true);
  expect(await abandoned).toMatchObject({ type: "error", text: "run_command did not finish before the call's timeout." });
  expect(Date.now() - started).toBeLessThan(5_000);
  await expect.poll(() => running(seconds)).toBe(false);
});

test("run_command - a command whose sandbox cannot start answers an error, and nothing runs", async () => {
  const broken = await openWorkspaceSandbox(workspace);
  // Its bundled programs gone, bwrap cannot make the sandbox's mounts.
  await broken.sandbox.close();
  try {
    const run = runSandboxed(broken.sandbox, broken.files, { command: "touch ran.txt", cwd: ".", timeoutMs: 5_000 }, new AbortController().signal);
    await expect(run).rejects.toThrow(/^The command's sandbox did not start \(bwrap ended with 1: bwrap: Can't find source path .*\); nothing ran\.$/);
    await expect(stat(join(root, "ran.txt"))).rejects.toThrow(/ENOENT/);
  } finally {
    broken.files.close();
  }
});

test("file worker - a call in flight when the worker dies answers with an error; the next call starts it again", async () => {
  const pid = sandbox.files.pid!;
  process.kill(pid, "SIGSTOP"); // stopped, the worker cannot answer before it is killed: the call is in flight for sure
  const inFlight = sandbox.files.call("get_workspace_info", {}, new AbortController().signal);
  process.kill(pid, "SIGKILL");
  await expect(inFlight).rejects.toThrow(/The file operations' sandbox stopped \(killed by SIGKILL\) before the call answered; nothing ran outside it/);
  expect((await call("read_file", { path: "notes.txt", limit: 1 })).json).toMatchObject({ content: "one" });
  expect(sandbox.files.pid).not.toBe(pid);
});

test("run_javascript - the command group's other tool is answered with a refusal saying what to do instead", async () => {
  expect(await call("run_javascript", { code: "return 1" })).toMatchObject({ status: 200, type: "error", text: expect.stringContaining("Run a script with run_command instead") });
});
