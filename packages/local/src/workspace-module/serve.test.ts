import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";

const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));
/** `npm run workspace`'s command, run as node itself. */
const SERVE = ["--import", "tsx", "packages/local/src/workspace-module/serve.ts"];

let base: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "workspace-serve-")));
  await mkdir(join(base, "data", "inside"), { recursive: true });
  await mkdir(join(base, "app"));
  await mkdir(join(base, "empty-path"));
});

afterAll(() => rm(base, { recursive: true, force: true }));

/** Runs `npm run workspace -- <args>` until it exits, or until it has printed its banner (then stops it with SIGTERM). */
function serve(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...SERVE, ...args, "--port", "0"], {
      cwd: REPOSITORY,
      env: { ...process.env, TOOLGATE_URL: "http://127.0.0.1:9", TOOLGATE_DATA_DIR: join(base, "data"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk;
      if (output.includes("Ctrl-C stops it.")) child.kill("SIGTERM");
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("close", (code) => resolve({ code, output }));
  });
}

test.concurrent("npm run workspace - refuses a directory inside toolgate's data directory, and a parent of the repository that holds one", async () => {
  const [inside, parent] = await Promise.all([serve([join(base, "data", "inside")]), serve([dirname(await realpath(REPOSITORY))])]);
  expect(inside).toMatchObject({ code: 1, output: expect.stringContaining(`${join(base, "data", "inside")} is inside toolgate's data directory ${join(base, "data")}`) });
  expect(parent).toMatchObject({ code: 1, output: expect.stringContaining("holds toolgate's data directory") });
  expect(parent.output).toContain(join(await realpath(REPOSITORY), ".toolgate"));
});

test.concurrent("npm run workspace - without bwrap it exits 1 saying how to install it, and serves nothing", async () => {
  const started = await serve([join(base, "app")], { PATH: join(base, "empty-path") });
  expect(started).toMatchObject({ code: 1, output: expect.stringContaining("bubblewrap (bwrap) is not installed") });
  expect(started.output).toContain("apt-get install bubblewrap");
  expect(started.output).not.toContain("The workspace module serves");
});

test.concurrent("npm run workspace - --allow-host takes a host, not a URL", async () => {
  expect(await serve([join(base, "app"), "--allow-host", "https://registry.npmjs.org/"])).toMatchObject({
    code: 1,
    output: expect.stringContaining('--allow-host takes a host, such as registry.npmjs.org, without a scheme, port or path; got "https://registry.npmjs.org/"'),
  });
});

test.concurrent("npm run workspace - says its commands and file operations run in a bubblewrap sandbox, and which hosts they may reach", async () => {
  const [offline, online] = await Promise.all([serve([join(base, "app")]), serve([join(base, "app"), "--allow-host", "registry.npmjs.org"])]);
  expect(offline).toMatchObject({ code: 0, output: expect.stringContaining("every command and file operation runs in a bubblewrap sandbox") });
  expect(offline.output).toContain("nothing else of this machine; no network");
  expect(online.output).toContain("network only to registry.npmjs.org (ports 80 and 443, through a proxy)");
});
