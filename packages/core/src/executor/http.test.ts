import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ToolgateError } from "../error";
import type { HttpCallPayload } from "./http";
import { runHttpExecutor } from "./http";

type Received = { method?: string; path?: string; headers: IncomingMessage["headers"]; body: string };
type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const received: Received[] = [];
const handlers = new Map<string, Handler>();
let server: Server;
let origin: string;

const json = (status: number, body: unknown) => (_: IncomingMessage, response: ServerResponse) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(typeof body === "string" ? body : JSON.stringify(body));
};

handlers.set("/ok", json(200, { content: "42 results", type: "json", metadata: { rows: 42 } }));
handlers.set("/ok-plain", json(200, { content: "hello" }));
handlers.set("/created", json(201, { content: "made" }));
handlers.set("/error-500", json(500, { content: "boom" }));
handlers.set("/error-404", json(404, { error: "nope" }));
handlers.set("/not-json", (_, response) => {
  response.writeHead(200, { "content-type": "text/html" });
  response.end("<html>hello</html>");
});
handlers.set("/wrong-shape", json(200, { result: "no content field" }));
handlers.set("/wrong-content-type", json(200, { content: 5 }));
handlers.set("/wrong-type", json(200, { content: "x", type: "binary" }));
handlers.set("/redirect", (_, response) => {
  response.writeHead(302, { location: "/ok" });
  response.end();
});
handlers.set("/slow-headers", (_, response) => {
  const timer = setTimeout(() => json(200, { content: "too late" })(_, response), 3_000);
  response.on("close", () => clearTimeout(timer));
});
handlers.set("/slow-body", (_, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.write('{"content":');
  const timer = setTimeout(() => response.end('"too late"}'), 3_000);
  response.on("close", () => clearTimeout(timer));
});

const HUGE_BYTES = 120 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");

/** Writes `total` bytes of one long JSON string, respecting backpressure, until done or the client goes away. */
function streamHuge(response: ServerResponse, total: number) {
  let sent = 0;
  const pump = () => {
    while (sent < total && !response.destroyed) {
      sent += CHUNK.byteLength;
      if (!response.write(CHUNK)) return void response.once("drain", pump);
    }
    if (!response.destroyed) response.end('"}');
  };
  response.write('{"content":"');
  pump();
}

handlers.set("/endless", (_, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  streamHuge(response, HUGE_BYTES);
});
handlers.set("/declared-huge", (_, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": String(HUGE_BYTES) });
  streamHuge(response, HUGE_BYTES);
});
handlers.set("/deep-metadata", json(200, `{"content":"ok","metadata":{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`));

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ method: request.method, path: request.url, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      const handler = handlers.get(request.url ?? "");
      if (handler) handler(request, response);
      else json(404, { error: "no handler" })(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const payload: HttpCallPayload = {
  callId: "call_01HXYZ",
  tool: "search_code",
  arguments: { query: "fetch(", nested: { limit: 3, tags: ["a", "é"] } },
  agentId: "agt_01HABC",
  roleId: "rol_01HDEF",
};

const run = (path: string, timeoutMs = 5_000) => runHttpExecutor({ type: "http", url: `${origin}${path}` }, payload, timeoutMs);

async function failure(promise: Promise<unknown>): Promise<ToolgateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgateError);
    return error as ToolgateError;
  }
  throw new Error("expected the executor call to fail");
}

test("runHttpExecutor - returns the executor's tool result", async () => {
  expect(await run("/ok")).toEqual({ content: "42 results", type: "json", metadata: { rows: 42 } });
});

test("runHttpExecutor - defaults the result type to text and accepts any 2xx", async () => {
  expect(await run("/ok-plain")).toEqual({ content: "hello", type: "text" });
  expect(await run("/created")).toEqual({ content: "made", type: "text" });
});

test("runHttpExecutor - POSTs { callId, tool, arguments, agentId, roleId } as JSON", async () => {
  received.length = 0;
  await run("/ok");
  expect(received).toHaveLength(1);
  const request = received[0]!;
  expect(request.method).toBe("POST");
  expect(request.path).toBe("/ok");
  expect(request.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(request.body);
  expect(body).toEqual({
    callId: "call_01HXYZ",
    tool: "search_code",
    arguments: { query: "fetch(", nested: { limit: 3, tags: ["a", "é"] } },
    agentId: "agt_01HABC",
    roleId: "rol_01HDEF",
  });
  expect(Object.keys(body).sort()).toEqual(["agentId", "arguments", "callId", "roleId", "tool"]);
});

test("runHttpExecutor - a call made ready before its admission is sent once admitted, its timeout counted from then; one not admitted is never sent", async () => {
  received.length = 0;
  let admit!: () => void;
  const running = runHttpExecutor({ type: "http", url: `${origin}/ok` }, payload, 150, { admitted: new Promise<void>((resolve) => (admit = resolve)) });
  await sleep(300);
  expect(received).toHaveLength(0);
  admit();
  expect(await running).toMatchObject({ content: "42 results" });
  expect(received).toHaveLength(1);

  const refused = runHttpExecutor({ type: "http", url: `${origin}/ok` }, payload, 5_000, { admitted: Promise.reject(new Error("not admitted")) });
  await expect(refused).rejects.toThrow("not admitted");
  await sleep(50);
  expect(received).toHaveLength(1);
});

test("runHttpExecutor - a non-2xx answer fails with executor_failed 502", async () => {
  for (const [path, status] of [["/error-500", "500"], ["/error-404", "404"]] as const) {
    const error = await failure(run(path));
    expect(error.code, path).toBe("executor_failed");
    expect(error.status, path).toBe(502);
    expect(error.message, path).toContain(status);
    expect(error.details.recoverable).toBe(false);
  }
});

test("runHttpExecutor - an answer that is not JSON fails with executor_failed", async () => {
  const error = await failure(run("/not-json"));
  expect(error.code).toBe("executor_failed");
  expect(error.status).toBe(502);
  expect(error.message).toMatch(/JSON/);
});

test("runHttpExecutor - JSON that is not a tool result fails with executor_failed", async () => {
  for (const path of ["/wrong-shape", "/wrong-content-type", "/wrong-type"]) {
    const error = await failure(run(path));
    expect(error.code, path).toBe("executor_failed");
    expect(error.status, path).toBe(502);
  }
});

test("runHttpExecutor - a redirect is not followed and fails with executor_failed", async () => {
  received.length = 0;
  const error = await failure(run("/redirect"));
  expect(error.code).toBe("executor_failed");
  expect(received.map((r) => r.path)).toEqual(["/redirect"]);
});

test("runHttpExecutor - a server slower than timeoutMs fails with tool_timeout 504", async () => {
  for (const path of ["/slow-headers", "/slow-body"]) {
    const started = performance.now();
    const error = await failure(run(path, 200));
    const elapsed = performance.now() - started;
    expect(error.code, path).toBe("tool_timeout");
    expect(error.status, path).toBe(504);
    expect(error.details).toMatchObject({ timeoutMs: 200 });
    expect(error.message, path).toContain("search_code");
    expect(elapsed, path).toBeGreaterThanOrEqual(150);
    expect(elapsed, path).toBeLessThan(2_000);
  }
});

test("runHttpExecutor - a closed port fails with executor_failed 502", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await failure(runHttpExecutor({ type: "http", url: `http://127.0.0.1:${port}/run` }, payload, 5_000));
  expect(error.code).toBe("executor_failed");
  expect(error.status).toBe(502);
  expect(error.message).toContain(`127.0.0.1:${port}`);
});

/** The highest resident set size seen while the work runs, sampled every few milliseconds. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; growthBytes: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { result, growthBytes: peak - before };
}

test("runHttpExecutor - a 120 MB answer is cut at the 5 MiB limit as it streams: 502 executor_failed, and the process barely grows", async () => {
  const { result, growthBytes } = await peakRss(() => run("/endless", 60_000));
  expect(result.status).toBe("rejected");
  const error = (result as PromiseRejectedResult).reason as ToolgateError;
  expect(error).toBeInstanceOf(ToolgateError);
  expect(error.code).toBe("executor_failed");
  expect(error.status).toBe(502);
  expect(error.message).toContain("larger than 5 MiB");
  expect(growthBytes, `grew by ${(growthBytes / 1024 / 1024).toFixed(1)} MB`).toBeLessThan(64 * 1024 * 1024);
});

test("runHttpExecutor - a declared Content-Length over the limit is refused before reading the body", async () => {
  const error = await failure(run("/declared-huge"));
  expect(error.code).toBe("executor_failed");
  expect(error.message).toContain("larger than 5 MiB");
});

test("runHttpExecutor - a result nested thousands of levels deep is an executor failure, not a crash", async () => {
  const error = await failure(run("/deep-metadata"));
  expect(error.code).toBe("executor_failed");
  expect(error.message).toContain("levels deep");
});
