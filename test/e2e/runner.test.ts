import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@toolgate/local/free-port";
import { afterAll, describe, expect, test } from "vitest";
import { runToExit, startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { waitFor, isRunning } from "../support/wait";

const started: LocalProcess[] = [];
const leftPids: number[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(started.map((stack) => stack.stop("SIGTERM")));
  // runToExit cannot be stopped: a start that wrongly keeps running is found by its TOOLGATE_DATA_DIR.
  for (const dir of dirs) leftPids.push(...(await runnersOn(dir)));
  for (const pid of leftPids) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function runnersOn(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`TOOLGATE_DATA_DIR=${dir}`) || cmdline.includes(dir)) found.push(Number(entry));
  }
  return found;
}

async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-runner-"));
  dirs.push(dir);
  return dir;
}

async function start(dir: string, env: Record<string, string> = {}) {
  const stack = await startLocalProcess(dir, env);
  started.push(stack);
  return stack;
}

/** A `java` first on PATH that notes each time it is run, then runs the real one. */
async function recordingJava() {
  const dir = await dataDir();
  const calls = join(dir, "calls");
  const realJava = execFileSync("sh", ["-c", "command -v java"], { encoding: "utf8" }).trim();
  await writeFile(join(dir, "java"), `#!/bin/sh\necho "$@" >> ${calls}\nexec ${realJava} "$@"\n`);
  await chmod(join(dir, "java"), 0o755);
  return { path: `${dir}:${process.env.PATH}`, calls: () => readFile(calls, "utf8").then((text) => text.split("\n").filter(Boolean), () => []) };
}

const dynamoPidFile = (dir: string) => join(dir, "dynamodb", "dynamodb-local.pid");
const dynamoPid = async (dir: string) => Number((await readFile(dynamoPidFile(dir), "utf8")).trim());

/** In memory there is no pid file: the DynamoDB Local is the runner's java child. */
async function dynamoChildOf(runnerPid: number): Promise<number | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (parent === runnerPid && cmdline.includes("DynamoDBLocal")) return Number(entry);
  }
  return undefined;
}


const groupIds = (body: { groups: { id: string }[] }) => body.groups.map((group) => group.id).sort();

describe("npm start", () => {
  test("npm start - a second start on a data dir in use exits 1 naming the running pid and port, and leaves that instance and its DynamoDB Local alone", async () => {
    const dir = await dataDir();
    const first = await start(dir);
    const firstDynamo = await dynamoPid(dir);

    const second = await runToExit({ PORT: String(await freePort()), TOOLGATE_DATA_DIR: dir });

    expect(second.code).toBe(1);
    expect(second.output).toContain(
      `toolgate is already running on the data dir ${dir} (pid ${first.child.pid}, port ${first.port}). Stop it first, or set TOOLGATE_DATA_DIR to another directory.`,
    );
    expect(second.output).not.toMatch(/\n\s+at /);
    expect((await first.request("GET", "/groups", first.adminToken)).status).toBe(200);
    expect(await dynamoPid(dir)).toBe(firstDynamo);
    expect(isRunning(firstDynamo)).toBe(true);
  }, 60_000);

  test("npm start - in memory, a second start on a port in use exits 1 saying so before it starts DynamoDB Local, and runs no java", async () => {
    const adminToken = "port-in-use-admin-token";
    const first = await start(await dataDir(), { TOOLGATE_IN_MEMORY: "1", TOOLGATE_ADMIN_TOKEN: adminToken });
    const java = await recordingJava();

    const second = await runToExit({ TOOLGATE_IN_MEMORY: "1", TOOLGATE_DATA_DIR: await dataDir(), PORT: String(first.port), PATH: java.path });

    expect(second.code).toBe(1);
    expect(second.output.trim()).toBe(
      `Port ${first.port} on 127.0.0.1 is already in use (another toolgate, or another program); nothing was started. Set PORT to another port, e.g. PORT=${first.port + 1} npm start`,
    );
    expect(second.output).not.toContain("dynamodb-local");
    expect(await java.calls()).toEqual([]);
    expect((await first.request("GET", "/groups", adminToken)).status).toBe(200);
  }, 60_000);

  test("npm start - after the runner is killed with SIGKILL, the next start replaces its lock and stops the DynamoDB Local it left", async () => {
    const dir = await dataDir();
    const first = await start(dir);
    const role = await first.request("POST", "/roles", first.adminToken, { name: "before the kill", rolePrompt: "Persist." });
    const leftBehind = await dynamoPid(dir);
    leftPids.push(leftBehind);

    expect(await first.stop("SIGKILL")).toBe(null);
    expect(JSON.parse(await readFile(join(dir, "runner.lock"), "utf8"))).toMatchObject({ pid: first.child.pid, port: first.port });
    expect(isRunning(leftBehind)).toBe(true);

    const second = await start(dir);

    expect(JSON.parse(await readFile(join(dir, "runner.lock"), "utf8"))).toMatchObject({ pid: second.child.pid, port: second.port });
    expect(isRunning(leftBehind)).toBe(false);
    expect(await dynamoPid(dir)).not.toBe(leftBehind);
    expect((await second.request("GET", `/roles/${role.body.id}`, second.adminToken)).status).toBe(200);
  }, 60_000);

  test("npm start - a DynamoDB Local killed with SIGKILL is restarted on the same data and the service answers again", async () => {
    const dir = await dataDir();
    const stack = await start(dir);
    const role = await stack.request("POST", "/roles", stack.adminToken, { name: "survives the crash", rolePrompt: "Persist." });
    expect(role.status).toBe(201);
    const killed = await dynamoPid(dir);

    process.kill(killed, "SIGKILL");
    const restarted = await waitFor(async () => {
      const pid = await dynamoPid(dir).catch(() => killed);
      const groups = await stack.request("GET", "/groups", stack.adminToken);
      return pid !== killed && groups.status === 200 ? pid : undefined;
    }, "the service to answer again");

    expect(stack.output()).toContain("dynamodb-local: exited unexpectedly (killed by SIGKILL); restarting on the same data");
    expect(isRunning(restarted)).toBe(true);
    const again = await stack.request("GET", `/roles/${role.body.id}`, stack.adminToken);
    expect(again.status).toBe(200);
    expect(again.body.name).toBe("survives the crash");
  }, 60_000);

  test("npm start - in memory, a DynamoDB Local killed with SIGKILL is restarted empty and the built-in groups, root role and root agent come back", async () => {
    const adminToken = "in-memory-runner-admin-token";
    const stack = await start(await dataDir(), { TOOLGATE_IN_MEMORY: "1", TOOLGATE_ADMIN_TOKEN: adminToken });
    const builtins = groupIds((await stack.request("GET", "/groups", adminToken)).body);
    const role = await stack.request("POST", "/roles", adminToken, { name: "lost with the memory", rolePrompt: "Gone." });
    expect(role.status).toBe(201);
    const killed = (await dynamoChildOf(stack.child.pid!))!;

    process.kill(killed, "SIGKILL");
    await waitFor(async () => (stack.output().includes("the in-memory data was lost") ? true : undefined), "the table to be recreated");

    const groups = await stack.request("GET", "/groups", adminToken);
    expect(groups.status).toBe(200);
    expect(groupIds(groups.body)).toEqual(builtins);
    expect((await stack.request("GET", "/roles/root", adminToken)).status).toBe(200);
    expect((await stack.request("GET", `/roles/${role.body.id}`, adminToken)).status).toBe(404);
    const created = await stack.request("POST", "/roles", adminToken, { name: "after the restart", rolePrompt: "New.", toolGroups: [builtins[0]] });
    expect(created.status).toBe(201);
    expect(await dynamoChildOf(stack.child.pid!)).not.toBe(killed);
  }, 60_000);
});
