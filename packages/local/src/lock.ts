import { randomUUID } from "node:crypto";
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { commandLineOf, isAlive } from "./process-command";

export const LOCK_FILE = "runner.lock";

export type LockHolder = { pid: number; port: number; command: string; startedAt: string; id: string };

export type DataDirLock = {
  path: string;
  holder: LockHolder;
  /** Records the port the server listens on once it is known. */
  setPort(port: number): Promise<void>;
  release(): Promise<void>;
};

export class LockHeldError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    const where = holder.port > 0 ? `port ${holder.port}` : "still starting";
    super(
      `toolgate is already running on the data dir ${dataDir} (pid ${holder.pid}, ${where}). ` +
        "Stop it first, or set TOOLGATE_DATA_DIR to another directory.",
    );
    this.name = "LockHeldError";
  }
}

const MAX_TRIES = 100;
const TAKEOVER_WAIT_MS = 20;

/**
 * Ids of the locks this process holds or is taking. A lock naming this process's pid with another id
 * was left by an earlier process that had the same pid, as happens when a container restarts.
 */
const ownIds = new Set<string>();

/** Takes `<dataDir>/runner.lock`, replacing a lock whose holder is gone; throws LockHeldError while a runner holds it. */
export async function acquireDataDirLock(dataDir: string, port: number): Promise<DataDirLock> {
  // It holds the admin token and the local AWS key pair: a data dir toolgate creates is its owner's only.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, port, command: await commandLineOf(process.pid), startedAt: new Date().toISOString(), id: randomUUID() };
  ownIds.add(holder.id);
  try {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      if (await createExclusive(path, holder)) return lockHandle(path, holder);
      const text = await readIfPresent(path);
      if (text === undefined) continue;
      const existing = parseHolder(text);
      if (existing && (await isHeld(existing))) throw new LockHeldError(dataDir, existing);
      await removeStale(path, text, holder);
    }
    throw new Error(`Could not take the lock ${path}: other starts kept replacing it.`);
  } catch (error) {
    ownIds.delete(holder.id);
    throw error;
  }
}

/** Held while its pid is alive and that process still runs the command line recorded when it took the lock. */
export async function isHeld(holder: LockHolder): Promise<boolean> {
  if (holder.pid === process.pid) return ownIds.has(holder.id);
  if (!isAlive(holder.pid)) return false;
  return (await commandLineOf(holder.pid)) === holder.command;
}

export function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    const valid =
      Number.isInteger(value.pid) &&
      (value.pid as number) > 0 &&
      typeof value.port === "number" &&
      typeof value.command === "string" &&
      typeof value.startedAt === "string" &&
      typeof value.id === "string";
    return valid ? (value as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

function lockHandle(path: string, holder: LockHolder): DataDirLock {
  let released = false;
  return {
    path,
    holder,
    async setPort(port) {
      if (released) return;
      holder.port = port;
      const temporary = `${path}.${holder.id}.tmp`;
      await writeFile(temporary, serialize(holder));
      await rename(temporary, path);
    },
    async release() {
      if (released) return;
      released = true;
      const current = parseHolder((await readIfPresent(path)) ?? "");
      if (current?.id === holder.id) await unlinkIfPresent(path);
      ownIds.delete(holder.id);
    },
  };
}

/**
 * Only one start may delete a stale lock, the one that takes `<lock>.takeover`; and it deletes the lock
 * only if it still reads as the stale text, so a lock another start has just taken survives.
 */
async function removeStale(path: string, staleText: string, holder: LockHolder) {
  const takeover = `${path}.takeover`;
  if (!(await createExclusive(takeover, holder))) {
    const other = parseHolder((await readIfPresent(takeover)) ?? "");
    if (other === undefined || !(await isHeld(other))) await unlinkIfPresent(takeover);
    else await sleep(TAKEOVER_WAIT_MS);
    return;
  }
  try {
    if ((await readIfPresent(path)) === staleText) await unlinkIfPresent(path);
  } finally {
    await unlinkIfPresent(takeover);
  }
}

/** link() rather than open(..., "wx"): the lock appears with its content, so no reader sees it empty. */
async function createExclusive(path: string, holder: LockHolder): Promise<boolean> {
  const temporary = `${path}.${holder.id}.tmp`;
  await writeFile(temporary, serialize(holder));
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlinkIfPresent(temporary);
  }
}

const serialize = (holder: LockHolder) => `${JSON.stringify(holder, null, 2)}\n`;

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function unlinkIfPresent(path: string) {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}
