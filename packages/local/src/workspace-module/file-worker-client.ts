import type { ChildProcessByStdio } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { FileAnswer, FileOperation, FileRequest } from "./file-worker";
import type { Sandbox } from "./sandbox";
import { SandboxUnavailable } from "./sandbox";

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** A line of the worker's, or undefined for one that is not an answer (the worker prints nothing else; a bug must not stop the module). */
const parsed = (line: string): FileAnswer | undefined => {
  try {
    return JSON.parse(line) as FileAnswer;
  } catch {
    return undefined;
  }
};
type Worker = { child: ChildProcessByStdio<Writable, Readable, Readable>; pending: Map<number, Pending>; ready: Promise<void> };

/** The last characters of what the worker (or bwrap) said on stderr, for the sentence saying why it stopped. */
const SAID_CHARS = 600;

/**
 * The file operations' worker, seen from the module: one process in a sandbox without network, started at open and
 * again on the next call after it dies. A call in flight when it dies answers with an error.
 */
export class FileWorkerClient {
  private worker: Worker | undefined;
  private lastId = 0;

  constructor(private readonly sandbox: Sandbox) {}

  /** Starts the worker and waits until it answers, so a sandbox that cannot run it fails at start. */
  async start(): Promise<void> {
    await (this.worker ??= this.startWorker()).ready;
  }

  call(operation: FileOperation, input: unknown, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const worker = (this.worker ??= this.startWorker());
    const id = ++this.lastId;
    const send = (request: FileRequest) => worker.child.stdin.write(`${JSON.stringify(request)}\n`);
    return new Promise((resolve, reject) => {
      const abandoned = () => {
        worker.pending.delete(id);
        send({ cancel: id });
        reject(signal.reason);
      };
      const settled = (settle: () => void) => {
        signal.removeEventListener("abort", abandoned);
        settle();
      };
      signal.addEventListener("abort", abandoned, { once: true });
      worker.pending.set(id, { resolve: (value) => settled(() => resolve(value)), reject: (error) => settled(() => reject(error)) });
      send({ id, operation, input });
    });
  }

  /** The worker's process (bwrap's), while one runs. */
  get pid(): number | undefined {
    return this.worker?.child.pid;
  }

  close(): void {
    this.worker?.child.kill("SIGKILL");
  }

  private startWorker(): Worker {
    const command = this.sandbox.program("file-worker", [this.sandbox.root]);
    const child = this.sandbox.spawn(command, { network: false, stdio: ["pipe", "pipe", "pipe"] }) as Worker["child"];
    const pending = new Map<number, Pending>();
    let said = "";
    child.stderr.on("data", (chunk: Buffer) => (said = (said + chunk).slice(-SAID_CHARS)));
    child.stdin.on("error", () => {});
    const ready = new Promise<void>((readied, failed) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const answer = parsed(line);
        if (!answer) return;
        if ("ready" in answer) return readied();
        const waiting = pending.get(answer.id);
        pending.delete(answer.id);
        if ("error" in answer) waiting?.reject(new Error(answer.error));
        else waiting?.resolve(answer.value);
      });
      const stopped = (how: string) => {
        if (this.worker?.child === child) this.worker = undefined;
        const why = said.trim() ? `${how}: ${said.trim()}` : how;
        failed(new SandboxUnavailable(`The file operations' sandbox did not start (${why}).`));
        const error = new Error(`The file operations' sandbox stopped (${why}) before the call answered; nothing ran outside it. Try the call again.`);
        pending.forEach((waiting) => waiting.reject(error));
        pending.clear();
      };
      child.once("error", (error) => stopped(error.message));
      child.once("close", (code, signal) => stopped(signal ? `killed by ${signal}` : `exit ${code}`));
    });
    ready.catch(() => {});
    return { child, pending, ready };
  }
}
