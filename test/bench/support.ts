import { createServer, request as httpRequest, Agent as HttpAgent } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** How a bench phase prints a figure (`name=value` on stdout) and a note (on stderr). */
export type Out = (name: string, value: string | number) => void;
export type Note = (text: string) => void;

type RequestOptions = { token?: string; body?: unknown; headers?: Record<string, string> };

/** A sequential keep-alive HTTP client: one socket per origin, so every timing is one request on a warm connection. */
export function httpClient(baseUrl: string) {
  const base = new URL(baseUrl);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, options: RequestOptions = {}, reused = false): Promise<{ status: number; text: string; bytes: number }> =>
    new Promise<{ status: number; text: string; bytes: number }>((done, fail) => {
      const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
      const headers: Record<string, string | number> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (payload) Object.assign(headers, { "content-type": "application/json", "content-length": payload.length });
      const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const buffer = Buffer.concat(chunks);
          done({ status: res.statusCode ?? 0, text: buffer.toString("utf8"), bytes: buffer.length });
        });
        res.on("error", fail);
      });
      // A kept socket the server closed while this process was busy (a phase of CPU work): sent again once, on a new one.
      req.on("error", (error: NodeJS.ErrnoException) => (req.reusedSocket && !reused && error.code === "ECONNRESET" ? send(method, path, options, true).then(done, fail) : fail(error)));
      req.end(payload);
    });
  return {
    send,
    /** Sends and parses JSON, failing unless the status is the expected one. */
    async json(method: string, path: string, expected: number, options: RequestOptions = {}): Promise<any> {
      const response = await send(method, path, options);
      if (response.status !== expected)
        throw new Error(`${method} ${path} answered ${response.status} (expected ${expected}): ${response.text.slice(0, 500)}`);
      return response.text ? JSON.parse(response.text) : undefined;
    },
    /** Milliseconds for one request, response body fully received; fails on an unexpected status. */
    async timed(method: string, path: string, expected: number, options: RequestOptions = {}) {
      const started = performance.now();
      const response = await send(method, path, options);
      const ms = performance.now() - started;
      if (response.status !== expected)
        throw new Error(`${method} ${path} answered ${response.status} (expected ${expected}): ${response.text.slice(0, 500)}`);
      return { ms, response };
    },
    close: () => agent.destroy(),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;

/** What a JSON server answers one request: a status, with a JSON body or none. */
export type JsonAnswer = { status: number; body?: unknown };

/**
 * A node:http server on 127.0.0.1 and a free port (kept-alive connections, no framework): each request is answered
 * from its method and its body as JSON (undefined when it is not JSON). `url` is its origin.
 */
export async function serveJson(answer: (method: string, body: unknown) => JsonAnswer): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // answered as a request without a JSON body
      }
      const answered = answer(req.method ?? "GET", body);
      if (answered.body === undefined) return void res.writeHead(answered.status).end();
      const text = JSON.stringify(answered.body);
      res.writeHead(answered.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ready, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ready());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** A minimal tool executor: reads the JSON body, answers `{ content, type: "text" }`. */
export async function startBenchExecutor(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const served = await serveJson((_method, body) => {
    received++;
    const tool = body == null ? "unknown" : String((body as { tool?: unknown }).tool);
    return { status: 200, body: { content: `ran ${tool}`, type: "text" } };
  });
  return { ...served, received: () => received };
}

/** A small generator (mulberry32) from a fixed start: the same orders on every run. */
function fixedRandom(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs every step once per round, `rounds` times, in a new order each round: what a step leaves behind (a socket to
 * settle, garbage, another process's tail) falls on each of the others alike, not always on the one that follows it.
 */
export async function inShuffledRounds<Step>(steps: readonly Step[], rounds: number, run: (step: Step) => Promise<unknown>): Promise<void> {
  const random = fixedRandom(0x70016a7e);
  const order = [...steps];
  for (let round = 0; round < rounds; round++) {
    for (let k = order.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [order[k], order[j]] = [order[j]!, order[k]!];
    }
    for (const step of order) await run(step);
  }
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Counts of DynamoDB round trips by operation, fed by the SDK middleware hook. */
export class RoundTrips {
  private readonly counts = new Map<string, number>();
  total = 0;

  readonly record = (operation: string) => {
    this.total++;
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  };

  snapshot(): Map<string, number> {
    return new Map(this.counts);
  }

  /** Operations since a snapshot, per call: "TransactWriteItems:1.00,UpdateItem:1.00". */
  breakdownSince(before: Map<string, number>, calls: number): string {
    const parts: string[] = [];
    for (const [operation, count] of [...this.counts].sort(([a], [b]) => a.localeCompare(b))) {
      const delta = count - (before.get(operation) ?? 0);
      if (delta > 0) parts.push(`${operation}:${(delta / calls).toFixed(2)}`);
    }
    return parts.join(",") || "none";
  }
}

/** Adds up the wall time during which at least one DynamoDB request was in flight, so concurrent requests count once. */
export function timeDynamo(client: { middlewareStack: { add: (...args: any[]) => void } }) {
  const timer = { totalMs: 0 };
  let inFlight = 0;
  let since = 0;
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
      if (inFlight++ === 0) since = performance.now();
      try {
        return await next(args);
      } finally {
        if (--inFlight === 0) timer.totalMs += performance.now() - since;
      }
    },
    { step: "finalizeRequest", name: "benchDynamoTimer" },
  );
  return timer;
}

/** A round-trip counter at the step where toolgate's `onRoundTrip` counts, for a client that is not toolgate's. */
export function countRoundTrips(client: { middlewareStack: { add: (...args: any[]) => void } }, onRoundTrip: (operation: string) => void) {
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      onRoundTrip(String(context.commandName ?? "unknown").replace(/Command$/, ""));
      return next(args);
    },
    { step: "finalizeRequest", name: "benchRoundTripCounter" },
  );
}

/** A forced full GC without needing --expose-gc on the command line, so heap figures are live data only. */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}

export const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(2);
export const ms = (value: number) => value.toFixed(2);

export const mean = (samples: readonly number[]) => samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length);
