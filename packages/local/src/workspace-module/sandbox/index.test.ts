import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { homedir, networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { isInternalAddress } from "./address";
import { openSandbox, SandboxUnavailable } from "./index";
import type { Sandbox } from "./index";

let base: string;
let root: string;
let outside: string;
let sandbox: Sandbox;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "sandbox-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(root);
  await mkdir(join(outside, ".toolgate"), { recursive: true });
  await writeFile(join(outside, ".toolgate", "admin-token"), "the admin token\n");
  sandbox = await openSandbox({ root, allowedHosts: [], programs: {} });
});

afterAll(async () => {
  await sandbox?.close();
  await rm(base, { recursive: true, force: true });
});

/** Runs a shell line in a sandbox of `on`, and answers its exit code and output. */
function run(line: string, on = sandbox): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = on.spawn(on.shell(line), { network: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("sandbox - the workspace is read-write at its own path; the system is read-only; nothing else of the machine is there", async () => {
  expect(await run(`pwd && echo made > made.txt && cat made.txt`)).toMatchObject({ code: 0, stdout: `${root}\nmade\n` });
  expect(await readFile(join(root, "made.txt"), "utf8")).toBe("made\n");
  expect(await run("touch /usr/planted")).toMatchObject({ code: 1, stderr: expect.stringContaining("Read-only file system") });
  expect(await run(`cat ${join(outside, ".toolgate", "admin-token")}`)).toMatchObject({ code: 1, stderr: expect.stringContaining("No such file or directory") });
  expect(await run("cat /etc/shadow")).toMatchObject({ code: 1, stderr: expect.stringContaining("No such file or directory") });
  expect((await run(`ls ${homedir()} ${process.cwd()}`)).code).not.toBe(0);
  expect(await run("ls -A ~ && echo $HOME && touch ~/mine")).toEqual({ code: 0, stdout: "/tmp/home\n", stderr: "" });
  const top = (await run("ls /")).stdout.split("\n").filter(Boolean);
  expect(top.every((entry) => ["bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "tmp", "usr"].includes(entry)), top.join(" ")).toBe(true);
  expect((await run("ls /etc")).stdout).not.toMatch(/shadow|sudoers|ssh/);
  expect(await run(`echo x > ${join(outside, "pwned")}; mkdir -p ${outside} && echo x > ${join(outside, "pwned")}`)).toMatchObject({ code: 0 });
  await expect(stat(join(outside, "pwned"))).rejects.toThrow(/ENOENT/);
});

test("sandbox - no capabilities, no new user namespaces, a pid namespace of its own", async () => {
  const status = (await run("grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status")).stdout;
  expect(status).toMatch(/CapEff:\s+0+\n/);
  expect(status).toMatch(/CapBnd:\s+0+\n/);
  expect(status).toMatch(/NoNewPrivs:\s+1/);
  expect((await run("mount -o remount,rw,bind /usr")).code).not.toBe(0);
  expect((await run("unshare -r true")).code).not.toBe(0);
  expect((await run("ls /proc | grep -cE '^[0-9]+$'")).stdout.trim()).toMatch(/^[1-5]$/);
});

test("sandbox - the environment: toolgate's and secret-looking variables, npm's and the host's proxies are not passed on", async () => {
  const set = { TOOLGATE_ADMIN_TOKEN: "leak-1", GITHUB_TOKEN: "leak-2", DB_PASSWORD: "leak-3", npm_config_local_prefix: "/leak-4", HTTPS_PROXY: "http://leak-5", KEPT_VARIABLE: "kept" };
  Object.assign(process.env, set);
  try {
    const environment = (await run("env")).stdout;
    expect(environment).not.toContain("leak-");
    expect(environment).toContain("KEPT_VARIABLE=kept");
    expect(environment).toMatch(/^HOME=\/tmp\/home$/m);
    expect(environment).toMatch(/^TERM=dumb$/m);
    expect(environment).toMatch(/^PATH=.*\/usr\/bin/m);
  } finally {
    for (const name of Object.keys(set)) delete process.env[name];
  }
});

test("sandbox - no network: not this machine's loopback, not another host", async () => {
  const server = createServer((_incoming, answer) => answer.end("reached"));
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", () => listening()));
  const { port } = server.address() as { port: number };
  try {
    const fetched = await run(`node -e "fetch('http://127.0.0.1:${port}/').then(() => console.log('reached'), () => { console.log('refused'); process.exit(3) })"`);
    expect(fetched).toMatchObject({ code: 3, stdout: "refused\n" });
    expect((await run("curl -sS -m 5 http://example.com/")).stderr).toMatch(/Could not resolve host/);
  } finally {
    server.close();
  }
});

test("sandbox - what a command leaves running ends with it, and killing bwrap ends everything inside", async () => {
  const marker = `${1000 + Math.random()}`.slice(0, 12);
  const started = Date.now();
  expect(await run(`sleep ${marker} > /dev/null 2>&1 & echo started`)).toMatchObject({ code: 0, stdout: "started\n" });
  expect(Date.now() - started).toBeLessThan(5_000);
  await expect.poll(() => sleeping(marker)).toBe(false);

  const child = sandbox.spawn(sandbox.shell(`sleep ${marker} & sleep ${marker}`), { network: true, stdio: "ignore" });
  await expect.poll(() => sleeping(marker)).toBe(true);
  child.kill("SIGKILL");
  await expect.poll(() => sleeping(marker)).toBe(false);
});

/** Whether a `sleep` with this argument runs on this machine (seen from outside the sandbox). */
async function sleeping(marker: string): Promise<boolean> {
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (commandLine === `sleep\0${marker}\0`) {
      const line = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      if (line !== "" && line.slice(line.lastIndexOf(")") + 2)[0] !== "Z") return true;
    }
  }
  return false;
}

test("sandbox - fails closed: without bwrap, or with a bwrap that cannot make its namespaces, nothing opens", async () => {
  const path = process.env.PATH;
  const fake = join(base, "fake-bin");
  await mkdir(fake);
  await writeFile(join(fake, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
  await chmod(join(fake, "bwrap"), 0o755);
  try {
    process.env.PATH = join(base, "nothing-here");
    const missing = openSandbox({ root, allowedHosts: [], programs: {} });
    await expect(missing).rejects.toBeInstanceOf(SandboxUnavailable);
    await expect(missing).rejects.toThrow(/bwrap\) is not installed.*apt-get install bubblewrap/);

    process.env.PATH = `${fake}:${path}`;
    const failing = openSandbox({ root, allowedHosts: [], programs: {} });
    await expect(failing).rejects.toBeInstanceOf(SandboxUnavailable);
    await expect(failing).rejects.toThrow(/setting up uid map: Permission denied.*AppArmor/);
  } finally {
    process.env.PATH = path;
  }
});

/** An address of this machine that is not internal, where a test server can stand for a host on the internet. */
const outwardAddress = Object.values(networkInterfaces())
  .flat()
  .find((one) => one?.family === "IPv4" && !one.internal && !isInternalAddress(one.address))?.address;

test.skipIf(!outwardAddress)("sandbox - with allowed hosts, commands reach them through the proxy and nothing else", async ({ skip }) => {
  const server = createServer((incoming, answer) => answer.end(`outward ${incoming.url}`));
  const listening = await new Promise<Server | undefined>((resolve) => server.once("error", () => resolve(undefined)).listen(443, outwardAddress, () => resolve(server)));
  if (!listening) return skip(`port 443 of ${outwardAddress} cannot be bound here`);
  const networked = await openSandbox({ root, allowedHosts: [outwardAddress!, "localhost"], programs: {} });
  try {
    expect(await run(`curl -sS -m 10 http://${outwardAddress}:443/plain`, networked)).toMatchObject({ code: 0, stdout: "outward /plain" });
    expect(await run(`curl -sS -m 10 -p http://${outwardAddress}:443/tunnelled`, networked)).toMatchObject({ code: 0, stdout: "outward /tunnelled" });
    expect(await run(`curl -sS -m 10 http://localhost/`, networked)).toMatchObject({ stdout: expect.stringContaining("never reached from the sandbox") });
    expect(await run(`curl -sS -m 10 http://example.com/`, networked)).toMatchObject({ stdout: expect.stringContaining("not a host this sandbox may reach") });
    expect((await run(`curl -sS -m 10 --noproxy '*' http://${outwardAddress}:443/`, networked)).code).not.toBe(0);
    expect(await run("exit 7", networked)).toMatchObject({ code: 7 });
  } finally {
    await networked.close();
    server.close();
  }
});
