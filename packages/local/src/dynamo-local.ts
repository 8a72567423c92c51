import { execFile, type ExecFileException } from "node:child_process";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { adoptSharedDatabase } from "./dynamo-files";
import { ANY_KEY, type DynamoProcess, launchDynamoProcess, waitUntilReady } from "./dynamo-process";
import { freePort } from "./free-port";
import { commandLineOf } from "./process-command";
import type { AccessKeyPair } from "./secrets";

const MIN_JAVA_MAJOR = 17;
const POLL_INTERVAL_MS = 250;
const KILL_AFTER_MS = 3_000;
const PORT_TRIES = 5;

export type RestartPolicy = {
  /** Restarts allowed within `windowMs`; one more crash and the runner gives up. */
  maxRestarts: number;
  windowMs: number;
  /** The delay before a restart doubles with each recent restart, from baseDelayMs up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
};

const DEFAULT_RESTART: RestartPolicy = { maxRestarts: 5, windowMs: 60_000, baseDelayMs: 250, maxDelayMs: 5_000 };

export interface DynamoLocalOptions {
  /** Absolute directory for the database file; absent means in memory. */
  dataDir?: string;
  /** The runner's own lines: ready, restarts, giving up. */
  log?: (line: string) => void;
  /** DynamoDB Local's output, line by line; defaults to `log`. */
  output?: (line: string) => void;
  /** Only used for the Java version check; DynamoDB Local itself is always started with `java` from PATH. */
  javaCommand?: string;
  /** Runs once DynamoDB Local answers again after it exited unexpectedly and was restarted. */
  onRestart?: () => Promise<void> | void;
  restart?: Partial<RestartPolicy>;
  /** Picks the port to start on; by default one the system reports free. */
  choosePort?: () => Promise<number>;
  /**
   * The one key pair the data is kept under. DynamoDB Local keeps a database per access key id and region (it checks
   * no signature), so a process that does not know the key id sees an empty one. Absent: one database that every key
   * shares (-sharedDb), as the tests use.
   */
  credentials?: AccessKeyPair;
}

export interface DynamoLocal {
  endpoint: string;
  port: number;
  /** The current java process; a new one after each restart. */
  readonly pid: number;
  stop(): Promise<void>;
}

export class JavaRequiredError extends Error {
  constructor(
    readonly found: string,
    options?: { cause?: unknown },
  ) {
    super(
      [
        `DynamoDB Local needs Java ${MIN_JAVA_MAJOR} or newer, but ${found}.`,
        `Install Java ${MIN_JAVA_MAJOR}+ and make sure \`java\` is on your PATH:`,
        `  Debian/Ubuntu: sudo apt-get install -y openjdk-${MIN_JAVA_MAJOR}-jre-headless`,
        `  macOS:         brew install openjdk@${MIN_JAVA_MAJOR}`,
      ].join("\n"),
      options,
    );
    this.name = "JavaRequiredError";
  }
}

export class DynamoLocalStartError extends Error {
  constructor(
    reason: string,
    readonly output: string[],
  ) {
    const tail = output.length > 0 ? `\nLast output of DynamoDB Local:\n${output.join("\n")}` : "\nDynamoDB Local printed nothing.";
    super(`DynamoDB Local did not start: ${reason}.${tail}`);
    this.name = "DynamoLocalStartError";
  }
}

export async function startDynamoLocal(options: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  const log = options.log ?? (() => {});
  const output = options.output ?? log;
  const policy = { ...DEFAULT_RESTART, ...options.restart };
  await checkJava(options.javaCommand ?? "java");

  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const credentials = options.credentials ?? ANY_KEY;
  const sharedDb = options.credentials === undefined;
  if (dataDir !== undefined) {
    // The database files are named after the key id: only their owner may list them.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700);
    await stopLeftover(dataDir, log);
    if (!sharedDb) await adoptSharedDatabase(dataDir, credentials.accessKeyId, log);
  }
  const choosePort = options.choosePort ?? (() => freePort());
  let port = await choosePort();
  let endpoint = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();

  let current: DynamoProcess = launchDynamoProcess(port, dataDir, output, sharedDb);
  let stopping = false;
  const noMoreRestarts = new AbortController();
  const killOnExit = () => {
    if (current.running()) current.child.kill("SIGKILL");
  };
  process.on("exit", killOnExit);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopping = true;
    noMoreRestarts.abort();
    stopped ??= (async () => {
      await terminate(current);
      process.off("exit", killOnExit);
      if (dataDir !== undefined) await rm(pidFile(dataDir), { force: true });
    })();
    return stopped;
  };

  const recordPid = async () => {
    if (dataDir !== undefined && current.child.pid !== undefined) await writeFile(pidFile(dataDir), `${current.child.pid}\n`);
  };

  const restartTimes: number[] = [];
  const restartAfter = async (reason: string) => {
    log(`dynamodb-local: exited unexpectedly (${reason}); ${dataDir ? "restarting on the same data" : "restarting in memory, so the data it held is lost"}`);
    for (;;) {
      while (restartTimes.length > 0 && restartTimes[0]! <= Date.now() - policy.windowMs) restartTimes.shift();
      if (restartTimes.length >= policy.maxRestarts) {
        const restarts = `${restartTimes.length} restart${restartTimes.length === 1 ? "" : "s"}`;
        log(`dynamodb-local: gave up after ${restarts} within ${policy.windowMs / 1000} s; stop toolgate and start it again`);
        if (dataDir !== undefined) await rm(pidFile(dataDir), { force: true });
        return;
      }
      const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** restartTimes.length);
      await sleep(delay, undefined, { signal: noMoreRestarts.signal }).catch(() => {});
      // No await between this check and the launch: stop() must always see the child it has to end.
      if (stopping) return;
      restartTimes.push(Date.now());
      current = launchDynamoProcess(port, dataDir, output, sharedDb);
      const failure = await waitUntilReady(endpoint, current.exited, credentials);
      if (stopping) return;
      if (failure === undefined) break;
      log(`dynamodb-local: the restart failed: ${failure}`);
      await terminate(current);
    }
    supervise(current);
    await recordPid();
    log(`dynamodb-local: restarted on ${endpoint} (pid ${current.child.pid})`);
    try {
      await options.onRestart?.();
    } catch (error) {
      log(`dynamodb-local: after the restart: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const supervise = (watched: DynamoProcess) =>
    void watched.exited.then((reason) => {
      if (!stopping && watched === current) void restartAfter(reason);
    });

  // A free port can be taken by another process before java binds it: then start again on another one.
  let failure = await waitUntilReady(endpoint, current.exited, credentials);
  for (let tries = 1; failure !== undefined && tries < PORT_TRIES && lostThePort(current); tries++) {
    log(`dynamodb-local: port ${port} was taken before it started; trying another`);
    port = await choosePort();
    endpoint = `http://127.0.0.1:${port}`;
    current = launchDynamoProcess(port, dataDir, output, sharedDb);
    failure = await waitUntilReady(endpoint, current.exited, credentials);
  }
  if (failure !== undefined) {
    await stop();
    throw new DynamoLocalStartError(failure, current.output());
  }
  supervise(current);
  await recordPid();
  log(`dynamodb-local: ready on ${endpoint} (${dataDir ?? "in memory"}) in ${Date.now() - startedAt} ms`);
  return {
    endpoint,
    port,
    get pid() {
      return current.child.pid ?? -1;
    },
    stop,
  };
}

async function terminate(dynamo: DynamoProcess) {
  if (!dynamo.running()) return;
  dynamo.child.kill("SIGTERM");
  const forceKill = setTimeout(() => dynamo.child.kill("SIGKILL"), KILL_AFTER_MS);
  await dynamo.exited;
  clearTimeout(forceKill);
}

const lostThePort = (dynamo: DynamoProcess) => !dynamo.running() && dynamo.output().some((line) => line.includes("Address already in use"));

const pidFile = (dataDir: string) => join(dataDir, "dynamodb-local.pid");

/**
 * A runner killed with SIGKILL cannot stop its DynamoDB Local; the next start on the same data
 * stops that one first, recognising it by the pid file and its command line.
 */
async function stopLeftover(dataDir: string, log: (line: string) => void) {
  const pid = Number((await readFile(pidFile(dataDir), "utf8").catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const command = await commandLineOf(pid);
  if (!command.includes("DynamoDBLocal") || !command.includes(dataDir)) return;
  log(`dynamodb-local: stopping a DynamoDB Local (pid ${pid}) left running on ${dataDir}`);
  process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < KILL_AFTER_MS && (await commandLineOf(pid)).includes("DynamoDBLocal"); waited += POLL_INTERVAL_MS) await sleep(POLL_INTERVAL_MS);
  if ((await commandLineOf(pid)).includes("DynamoDBLocal")) process.kill(pid, "SIGKILL");
}

async function checkJava(javaCommand: string): Promise<void> {
  const result = await new Promise<{ error: ExecFileException | null; stderr: string; stdout: string }>((done) =>
    execFile(javaCommand, ["-version"], { timeout: 15_000 }, (error, stdout, stderr) => done({ error, stdout, stderr })),
  );
  if (result.error?.code === "ENOENT") {
    throw new JavaRequiredError(`no \`${javaCommand}\` command was found`, { cause: result.error });
  }
  const text = `${result.stderr}\n${result.stdout}`;
  const firstLine = text.trim().split("\n")[0]?.trim() ?? "";
  const major = javaMajorVersion(text);
  if (major === undefined) {
    throw new JavaRequiredError(`\`${javaCommand} -version\` did not report a version (it printed: ${JSON.stringify(firstLine)})`, {
      cause: result.error ?? undefined,
    });
  }
  if (major < MIN_JAVA_MAJOR) {
    throw new JavaRequiredError(`\`${javaCommand}\` is Java ${major} (${firstLine})`);
  }
}

/** `version "1.8.0_292"` is Java 8; `version "17.0.2"`, `version "21"` and `version "22-ea"` are what they say. */
export function javaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}
