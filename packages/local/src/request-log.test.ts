import { afterEach, expect, test, vi } from "vitest";
import { logger } from "@toolgate/functions/log";
import type { RequestLine } from "@toolgate/functions/log";
import { requestSummary } from "./request-log";

const written: string[] = [];
function captureLogger(level: "INFO" | "WARN") {
  written.length = 0;
  logger.setLogLevel(level);
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
}
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel("WARN");
});
const loggedLines = () => written.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));

const line = (status: number, durationMs: number, route: string | null = "GET /groups"): RequestLine => ({
  requestId: `req-${status}-${durationMs}`,
  method: route?.split(" ")[0] ?? "GET",
  route,
  status,
  durationMs,
  principal: "admin",
});

/** A summary whose clock the test moves, and whose interval never fires on its own. */
function summary() {
  let clock = 1_000_000;
  const printed: string[] = [];
  const requests = requestSummary({ intervalMs: 3_600_000, print: (text) => printed.push(text), now: () => clock });
  return { requests, printed, advance: (ms: number) => (clock += ms) };
}

test("requestSummary - a success is counted, not printed; a 4xx is a WARN line and a 5xx an ERROR line; the summary counts by status class and names the slowest", () => {
  const { requests, printed, advance } = summary();
  captureLogger("WARN");

  requests.log(line(200, 12));
  requests.log(line(201, 340.6, "POST /agents/:id/calls"));
  requests.log(line(302, 1, "GET /"));
  requests.log(line(403, 5, "GET /agents/:id"));
  requests.log(line(503, 2_100, null));
  advance(60_000);
  requests.flush();
  requests.stop();

  expect(loggedLines().map(({ level, message, status, route }) => ({ level, message, status, route }))).toEqual([
    { level: "WARN", message: "request", status: 403, route: "GET /agents/:id" },
    { level: "ERROR", message: "request", status: 503, route: undefined },
  ]);
  expect(printed).toEqual(["requests: 5 in the last 60 s: 2 2xx, 1 3xx, 1 4xx, 1 5xx; slowest GET (no route) (2100 ms)"]);
});

test("requestSummary - each summary covers the requests since the one before, and an interval without requests prints nothing", () => {
  const { requests, printed, advance } = summary();
  captureLogger("WARN");

  advance(60_000);
  requests.flush();
  requests.log(line(200, 8));
  advance(2_500);
  requests.flush();
  advance(60_000);
  requests.flush();
  requests.stop();

  expect(printed).toEqual(["requests: 1 in the last 2.5 s: 1 2xx; slowest GET /groups (8 ms)"]);
  expect(written).toEqual([]);
});

test("requestSummary - at INFO every request is one line, as on AWS, and there is no summary", () => {
  const { requests, printed, advance } = summary();
  captureLogger("INFO");

  requests.log(line(200, 3));
  requests.log(line(404, 4, "GET /roles/:id"));
  advance(60_000);
  requests.flush();
  requests.stop();

  expect(loggedLines().map(({ level, message, status }) => ({ level, message, status }))).toEqual([
    { level: "INFO", message: "request", status: 200 },
    { level: "INFO", message: "request", status: 404 },
  ]);
  expect(printed).toEqual([]);
});
