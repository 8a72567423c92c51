// One stdio server's process: reached only through `await import("./stdio")`, like the MCP executor.
import { Client } from "@modelcontextprotocol/client";
import { scrubSecrets, scrubText } from "../call/redact";
import { executorError } from "./errors";
import { MAX_RESPONSE_BYTES } from "./http";
import { relayed } from "./mcp-connection";
import type { ServedCall } from "./mcp-connection";
import { cannotRelay, RelayRefusal } from "./relay";
import type { RelayedRequest } from "./relay";
import type { StdioHost, StdioLaunch } from "./stdio-host";
import { StdioTransport } from "./stdio-transport";

const CLIENT_INFO = { name: "toolgate", version: "1.0.0" };
const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} };
/** How long a process may take from its start to the end of its handshake. */
const START_TIMEOUT_MS = 30_000;
/** The first wait before a process that ended is started again, doubled for each failure in a row, up to the last. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** A process that ran this long before it ended was healthy: its failures in a row start again from one. */
const HEALTHY_MS = 60_000;
const STDERR_TAIL_CHARS = 400;

const backoffMs = (failures: number) => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));

const ofSeveral = (method: RelayedRequest) =>
  new RelayRefusal(
    `toolgate cannot tell which call's agent to ask: several calls are in flight on this stdio server's one process, and ${method === "elicitation/create" ? "a question" : "a sampling request"} names none of them. Ask it as a call's input_required result, or while only one call runs.`,
  );

type Running = { client: Client; transport: StdioTransport; release: () => Promise<void>; startedAt: number; stopping?: boolean };

const once = (release: () => Promise<void>) => {
  let released: Promise<void> | undefined;
  return () => (released ??= release().catch(() => {}));
};

/**
 * A group's stdio server: one process, started on first use inside its sandbox and kept warm, shared by every call to
 * the group (the client multiplexes their requests). A process that ends is started again after a backoff, during
 * which calls fail at once with executor_failed; one that worked is started again without waiting for a call.
 */
export class StdioServer {
  private running: Running | undefined;
  /** The process being started, until its handshake ends. */
  private launching: Running | undefined;
  private starting: Promise<Client> | undefined;
  private readonly calls = new Set<ServedCall>();
  private failures = 0;
  private retryAt = 0;
  private lastFailure = "";
  private restart: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly key: string,
    private readonly launch: StdioLaunch,
    private readonly host: StdioHost,
    private readonly secrets: string[],
  ) {}

  get group() {
    return this.launch.group;
  }

  get executor() {
    return this.launch.executor;
  }

  private failure(reason: string, details: Record<string, unknown> = {}) {
    return executorError("executor_failed", `The stdio MCP server of the group "${this.group}" ${scrubText(reason, this.secrets)}.`, { recoverable: false, ...details });
  }

  /** The connected client, starting the process if none runs; refused at once while a failed one waits to start again. */
  client(): Promise<Client> {
    if (this.stopped) return Promise.reject(this.failure("was stopped (its group was removed or changed, or toolgate is stopping)"));
    if (this.running) return Promise.resolve(this.running.client);
    const wait = this.retryAt - Date.now();
    if (!this.starting && wait > 0)
      return Promise.reject(
        this.failure(`${this.lastFailure}; toolgate starts it again in ${(wait / 1000).toFixed(1)} s`, { recoverable: true, retryAfterSeconds: Math.ceil(wait / 1000) }),
      );
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Runs one call's work with the process's client; what its server sends during the call is that call's while it is the only one in flight. */
  async serve<T>(served: ServedCall | undefined, work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.client();
    await served?.admitted;
    if (served) this.calls.add(served);
    try {
      return await work(client);
    } catch (error) {
      if (this.running?.client !== client && this.lastFailure) throw this.failure(`${this.lastFailure} during the call`);
      throw error;
    } finally {
      if (served) this.calls.delete(served);
    }
  }

  /** The one call in flight, to which whatever the server sends now belongs; none when there are none or several. */
  private only(): ServedCall | undefined {
    return this.calls.size === 1 ? [...this.calls][0] : undefined;
  }

  private relaying(client: Client) {
    const relay = (method: RelayedRequest, params: Record<string, unknown>, signal: AbortSignal) => {
      if (this.calls.size > 1) throw ofSeveral(method);
      if (this.calls.size === 0) throw cannotRelay(method, "No call of this stdio server is in flight.");
      return relayed(this.only(), method, params, signal);
    };
    client.setRequestHandler("elicitation/create", (request, ctx) => relay("elicitation/create", request.params, ctx.mcpReq.signal) as never);
    client.setRequestHandler("sampling/createMessage", (request, ctx) => relay("sampling/createMessage", request.params, ctx.mcpReq.signal) as never);
    client.setNotificationHandler("notifications/message", async (notification) => {
      const scope = this.only();
      await scope?.relay?.log(scrubSecrets(notification.params, scope.secrets));
    });
  }

  /** Each line of standard error to the host's log, scrubbed of the secrets; the last one kept for a failure's message. */
  private stderrOf(tail: { text: string }) {
    return (line: string) => {
      const scrubbed = scrubText(line, this.secrets);
      if (scrubbed.trim()) tail.text = scrubbed.slice(-STDERR_TAIL_CHARS);
      this.host.stderr(this.group, scrubbed);
    };
  }

  private async start(): Promise<Client> {
    const command = await this.host.sandboxed(this.launch).catch((error: unknown) => {
      const reason = `could not be started in its sandbox (${error instanceof Error ? error.message : String(error)})`;
      this.failed(this.failures + 1, reason);
      throw this.failure(reason, { recoverable: true });
    });
    const tail = { text: "" };
    const transport = new StdioTransport(command, { maxLineBytes: MAX_RESPONSE_BYTES, stderr: this.stderrOf(tail) });
    const client = new Client(CLIENT_INFO, { capabilities: RELAYED_CAPABILITIES, inputRequired: { autoFulfill: false } });
    const lastWords = () => (tail.text.trim() ? ` (its last words on standard error: ${tail.text.trim()})` : "");
    const how = () => (transport.exit?.signal ? ` (killed by ${transport.exit.signal})` : transport.exit?.code != null ? ` with code ${transport.exit.code}` : "");
    const broken = () => transport.broken && `wrote something other than MCP's JSON-RPC to its standard output: ${transport.broken}`;
    let ended: string | undefined;
    const running: Running = { client, transport, release: once(command.release), startedAt: Date.now() };
    this.relaying(client);
    transport.onclose = () => {
      const wasRunning = this.running === running;
      if (wasRunning) this.running = undefined;
      void running.release();
      ended = broken() || `ended${how()}${lastWords()}`;
      if (!wasRunning || running.stopping || this.stopped) return;
      this.failed(Date.now() - running.startedAt >= HEALTHY_MS ? 1 : this.failures + 1, ended);
      this.restartLater();
    };
    this.launching = running;
    try {
      await client.connect(transport, { signal: AbortSignal.timeout(START_TIMEOUT_MS) });
    } catch (error) {
      this.launching = undefined;
      running.stopping = true;
      await transport.close().catch(() => {});
      await running.release();
      const reason = broken() || (ended ? `ended${how()} before it answered MCP's handshake${lastWords()}` : `did not start (${error instanceof Error ? error.message : String(error)})${lastWords()}`);
      this.failed(this.failures + 1, reason);
      throw this.failure(reason, { recoverable: true });
    }
    this.launching = undefined;
    if (this.stopped) {
      await this.close(running);
      throw this.failure("was stopped while it started");
    }
    this.running = running;
    return client;
  }

  private failed(failures: number, reason: string) {
    this.failures = failures;
    this.retryAt = Date.now() + backoffMs(failures);
    this.lastFailure = reason;
  }

  /** Starts a process that ended again once its backoff has passed, so the group stays warm without waiting for a call. */
  private restartLater() {
    clearTimeout(this.restart);
    this.restart = setTimeout(() => void this.client().catch(() => {}), Math.max(0, this.retryAt - Date.now()) + 10);
    this.restart.unref();
  }

  private async close(running: Running) {
    running.stopping = true;
    await running.transport.close().catch(() => {});
    await running.release();
  }

  /** Stops the process for good (its group was removed or changed, or toolgate stops). */
  async stop() {
    this.stopped = true;
    clearTimeout(this.restart);
    const open = [this.running, this.launching].filter((running): running is Running => running !== undefined);
    this.running = undefined;
    await Promise.all(open.map((running) => this.close(running)));
    await this.starting?.catch(() => {});
  }
}
