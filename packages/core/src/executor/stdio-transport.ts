// The stdio executor's transport: reached only through `await import("./stdio")`.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { SandboxedCommand } from "./stdio-host";

const GRACE_MS = 2_000;

/**
 * MCP's stdio transport over a process of the runtime's (its sandbox's command line), strict where the SDK's
 * StdioClientTransport is lenient: it skips lines that are not JSON, so a server writing anything else would leave its
 * call waiting for its timeout. Here the first such line, or one past `maxLineBytes`, ends the process (`broken` says
 * what it was), and how the process ended (its exit code or signal) is kept for the message that names it.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** What the process wrote that is not a JSON-RPC message, once it did. */
  broken: string | undefined;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly command: SandboxedCommand,
    private readonly options: { maxLineBytes: number; stderr: (line: string) => void },
  ) {}

  start(): Promise<void> {
    return new Promise((started, failed) => {
      const child = spawn(this.command.command, this.command.args, { env: this.command.env, stdio: ["pipe", "pipe", "pipe"] });
      this.child = child;
      child.once("spawn", () => started());
      child.once("error", (error) => {
        failed(error);
        this.onerror?.(error);
      });
      child.once("close", (code, signal) => {
        this.exit = { code, signal };
        this.onclose?.();
      });
      child.stdin!.on("error", () => {});
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      createInterface({ input: child.stderr!, crlfDelay: Infinity }).on("line", (line) => this.options.stderr(line));
    });
  }

  private read(chunk: Buffer) {
    let from = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, from)) {
      this.pending.push(chunk.subarray(from, end));
      from = end + 1;
      const line = Buffer.concat(this.pending).toString("utf8").replace(/\r$/, "");
      this.pending = [];
      this.pendingBytes = 0;
      if (line.trim() !== "") this.take(line);
    }
    this.pending.push(chunk.subarray(from));
    this.pendingBytes += chunk.length - from;
    if (this.pendingBytes > this.options.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.misbehaved(`a message longer than ${this.options.maxLineBytes} bytes`);
    }
  }

  private take(line: string) {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(line));
    } catch {
      this.misbehaved(`"${line.slice(0, 120)}${line.length > 120 ? "…" : ""}"`);
      return;
    }
    if (!this.broken) this.onmessage?.(message);
  }

  private misbehaved(what: string) {
    if (this.broken) return;
    this.broken = what;
    void this.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit) return Promise.reject(new Error("the process has ended"));
    return new Promise((sent) => (stdin.write(`${JSON.stringify(message)}\n`) ? sent() : stdin.once("drain", () => sent())));
  }

  /** Ends the process: its input closed, then SIGTERM, then SIGKILL, each after a grace. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) return;
    const closed = new Promise<void>((done) => child.once("close", () => done()));
    const within = (ms: number) => Promise.race([closed.then(() => true), new Promise<boolean>((done) => setTimeout(() => done(false), ms).unref())]);
    child.stdin!.end();
    if (await within(GRACE_MS)) return;
    child.kill("SIGTERM");
    if (await within(GRACE_MS)) return;
    child.kill("SIGKILL");
    await closed;
  }
}
