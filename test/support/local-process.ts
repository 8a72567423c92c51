import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
/** `npm start`'s command, run as node itself (not through the tsx CLI) so a signal reaches the server, not a wrapper. */
const START = ["--import", "tsx", "packages/local/src/start.ts"];

export type AccessKeyPair = { accessKeyId: string; secretAccessKey: string };

export type LocalProcess = {
  url: string;
  port: number;
  dataDir: string;
  adminToken: string;
  /** The key pair DynamoDB Local and /eventbridge serve: from the environment, the data dir, or (in memory) the banner. */
  awsCredentials: AccessKeyPair;
  child: ChildProcess;
  output: () => string;
  /** A JSON request to the running service with a bearer token. */
  request(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * The child's output, kept for the test to read, and printed as the running test's own output, so it is shown when
 * that test fails and left out when it passes.
 */
function keepOutput(child: ChildProcess): () => string {
  let output = "";
  const take = (chunk: Buffer) => {
    output += chunk;
    const lines = String(chunk).split("\n").filter((line) => line.trim() !== "");
    if (lines.length > 0) console.log(lines.map((line) => `npm start (pid ${child.pid}) | ${line}`).join("\n"));
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  return () => output;
}

/** The local key pair as a user finds it: set in the environment, else in the data dir's file, else (in memory) in the banner's example. */
async function awsCredentialsOf(dataDir: string, env: Record<string, string>, output: string): Promise<AccessKeyPair> {
  const accessKeyId = env.TOOLGATE_LOCAL_AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.TOOLGATE_LOCAL_AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  const saved = await readFile(join(dataDir, "local-aws-credentials.json"), "utf8").catch(() => undefined);
  if (saved !== undefined) return JSON.parse(saved) as AccessKeyPair;
  const printed = output.match(/AWS_ACCESS_KEY_ID=(\S+) AWS_SECRET_ACCESS_KEY=(\S+) aws events/);
  if (!printed) throw new Error(`npm start printed no local AWS key pair:\n${output}`);
  return { accessKeyId: printed[1]!, secretAccessKey: printed[2]! };
}

/** Runs the embedded default (`npm start`'s command) as a user would, in a child process. */
export async function startLocalProcess(dataDir: string, env: Record<string, string> = {}): Promise<LocalProcess> {
  // PORT 0: the server binds a port the system picks, so no other process can take it between choosing and binding.
  const child = spawn(process.execPath, START, {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", TOOLGATE_DATA_DIR: dataDir, TOOLGATE_CLEANUP_INTERVAL_MS: "500", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = keepOutput(child);
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const url = await new Promise<string>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`toolgate did not start within 60 s:\n${output()}`)), 60_000);
    const check = () => {
      const match = output().match(/toolgate is running at (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        ready(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`toolgate exited with code ${code} before it was ready:\n${output()}`));
    });
  });
  const port = Number(new URL(url).port);
  const adminToken = env.TOOLGATE_ADMIN_TOKEN ?? (await readFile(join(dataDir, "admin-token"), "utf8")).trim();
  const awsCredentials = await awsCredentialsOf(dataDir, env, output());
  return {
    url,
    port,
    dataDir,
    adminToken,
    awsCredentials,
    child,
    output,
    request: (method, path, token, body) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json().catch(() => undefined)) as any })),
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, START, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = keepOutput(child);
  const code = await new Promise<number | null>((done) => child.once("close", done));
  return { code, output: output() };
}
