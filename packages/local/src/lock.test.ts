import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { acquireDataDirLock, type DataDirLock, LOCK_FILE, LockHeldError, type LockHolder } from "./lock";
import { commandLineOf } from "./process-command";

const children: ChildProcess[] = [];
const locks: DataDirLock[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(locks.splice(0).map((lock) => lock.release()));
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-lock-"));
  tempDirs.push(dir);
  return dir;
}

async function acquire(dir: string, port = 8787) {
  const lock = await acquireDataDirLock(dir, port);
  locks.push(lock);
  return lock;
}

function sleeper(): ChildProcess & { pid: number } {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

async function deadPid(): Promise<number> {
  const child = spawn("true", [], { stdio: "ignore" });
  await new Promise((done) => child.once("exit", done));
  return child.pid!;
}

async function writeLock(dir: string, holder: Partial<LockHolder>) {
  const full: LockHolder = { pid: 1, port: 9999, command: "", startedAt: new Date().toISOString(), id: "earlier", ...holder };
  await writeFile(join(dir, LOCK_FILE), JSON.stringify(full));
}

const readLock = async (dir: string) => JSON.parse(await readFile(join(dir, LOCK_FILE), "utf8")) as LockHolder;
const lockExists = (dir: string) => readFile(join(dir, LOCK_FILE)).then(() => true, () => false);

test("acquireDataDirLock - writes runner.lock with this process's pid, port and command line, and release removes it", async () => {
  const dir = await dataDir();

  const lock = await acquire(dir, 8787);
  const written = await readLock(dir);
  await lock.release();

  expect(written).toEqual({
    pid: process.pid,
    port: 8787,
    command: await commandLineOf(process.pid),
    startedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    id: expect.any(String),
  });
  expect(written.command).not.toBe("");
  expect(await lockExists(dir)).toBe(false);
});

test("acquireDataDirLock - setPort records the port the server listens on", async () => {
  const dir = await dataDir();
  const lock = await acquire(dir, 0);

  await lock.setPort(43123);

  expect((await readLock(dir)).port).toBe(43123);
});

test("acquireDataDirLock - a second acquisition while the lock is held is refused, and succeeds after release", async () => {
  const dir = await dataDir();
  const first = await acquire(dir, 8787);

  await expect(acquireDataDirLock(dir, 8788)).rejects.toBeInstanceOf(LockHeldError);
  await first.release();
  const second = await acquire(dir, 8788);

  expect((await readLock(dir)).id).toBe(second.holder.id);
});

test("acquireDataDirLock - replaces a lock whose pid is dead", async () => {
  const dir = await dataDir();
  const pid = await deadPid();
  await writeLock(dir, { pid, command: await commandLineOf(process.pid) });

  await acquire(dir);

  expect((await readLock(dir)).pid).toBe(process.pid);
});

test("acquireDataDirLock - replaces a lock whose pid is alive but is not a toolgate runner", async () => {
  const dir = await dataDir();
  const other = sleeper();
  await writeLock(dir, { pid: other.pid, command: await commandLineOf(process.pid) });

  await acquire(dir);

  expect((await readLock(dir)).pid).toBe(process.pid);
});

test("acquireDataDirLock - replaces a lock naming this process's pid that this process did not take", async () => {
  const dir = await dataDir();
  await writeLock(dir, { pid: process.pid, command: await commandLineOf(process.pid), id: "left-by-an-earlier-process-with-this-pid" });

  const lock = await acquire(dir);

  expect((await readLock(dir)).id).toBe(lock.holder.id);
});

test("acquireDataDirLock - replaces a lock that is not valid JSON", async () => {
  const dir = await dataDir();
  await writeFile(join(dir, LOCK_FILE), "{ half written");

  await acquire(dir);

  expect((await readLock(dir)).pid).toBe(process.pid);
});

test("acquireDataDirLock - refuses a lock held by a live process running the recorded command line, naming its pid and port", async () => {
  const dir = await dataDir();
  const runner = sleeper();
  await writeLock(dir, { pid: runner.pid, port: 8787, command: await commandLineOf(runner.pid) });

  const failure = await acquireDataDirLock(dir, 8788).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(LockHeldError);
  expect((failure as Error).message).toBe(
    `toolgate is already running on the data dir ${dir} (pid ${runner.pid}, port 8787). Stop it first, or set TOOLGATE_DATA_DIR to another directory.`,
  );
  expect((await readLock(dir)).pid).toBe(runner.pid);
});

test("acquireDataDirLock - of two acquisitions racing over a stale lock, exactly one wins", async () => {
  const dir = await dataDir();
  await writeLock(dir, { pid: await deadPid() });

  const outcomes = await Promise.allSettled([acquireDataDirLock(dir, 1), acquireDataDirLock(dir, 2)]);
  const won = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  locks.push(...won);

  expect(won).toHaveLength(1);
  expect(outcomes.find((outcome) => outcome.status === "rejected")).toMatchObject({ reason: expect.any(LockHeldError) });
  expect((await readLock(dir)).id).toBe(won[0]!.holder.id);
});

const CONTENDER = `
const [lockModule, dir, startAt] = process.argv.slice(2);
const { acquireDataDirLock } = await import(lockModule);
await new Promise((resolve) => setTimeout(resolve, Number(startAt) - Date.now()));
try {
  const lock = await acquireDataDirLock(dir, process.pid);
  console.log("won");
  // Held until the test has heard from every contender: one that starts late must find it held, not released.
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await lock.release();
} catch (error) {
  console.log(error.name === "LockHeldError" ? "refused " + error.holder.pid : "error " + error.message);
}
`;

test("acquireDataDirLock - of eight processes racing over a stale lock, exactly one wins and the others name it", async () => {
  const dir = await dataDir();
  await writeLock(dir, { pid: await deadPid() });
  const script = join(dir, "contender.mjs");
  await writeFile(script, CONTENDER);
  const startAt = Date.now() + 2_000;

  const contenders = Array.from({ length: 8 }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", script, join(import.meta.dirname, "lock.ts"), dir, String(startAt)], { stdio: ["pipe", "pipe", "pipe"] });
    children.push(child);
    let output = "";
    child.stderr!.on("data", (chunk) => console.error(String(chunk).trimEnd()));
    const said = new Promise<string>((done) => {
      child.stdout!.on("data", (chunk) => {
        output += chunk;
        if (output.includes("\n")) done(output.trim());
      });
      child.once("exit", () => done(output.trim()));
    });
    const exited = new Promise((done) => child.once("exit", done));
    return { child, said, exited };
  });
  const results = await Promise.all(contenders.map(async ({ child, said }) => ({ pid: child.pid!, said: await said })));
  for (const { child } of contenders) child.stdin!.end();
  await Promise.all(contenders.map(({ exited }) => exited));

  const winners = results.filter((result) => result.said === "won");
  expect(winners).toHaveLength(1);
  expect(results.filter((result) => result.said === `refused ${winners[0]!.pid}`)).toHaveLength(7);
}, 20_000);
