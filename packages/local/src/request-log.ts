import { lineEachRequest, logger } from "@toolgate/functions/log";
import type { RequestLine, RequestLog } from "@toolgate/functions/log";

/** The requests of one interval, as the summary line tells them. */
type Tally = { requests: number; byStatusClass: Map<string, number>; slowest: RequestLine | undefined };

export type RequestSummary = {
  log: RequestLog;
  /** Prints the summary of the requests since the last one, if there were any. */
  flush(): void;
  stop(): void;
};

const EVERY_REQUEST_LEVELS = new Set(["TRACE", "DEBUG", "INFO"]);

/** Whether the Logger's level (POWERTOOLS_LOG_LEVEL) asks for every request, as on AWS. */
export const everyRequestLogged = () => EVERY_REQUEST_LEVELS.has(logger.getLevelName());

const emptyTally = (): Tally => ({ requests: 0, byStatusClass: new Map(), slowest: undefined });

function count(tally: Tally, line: RequestLine) {
  const statusClass = `${Math.floor(line.status / 100)}xx`;
  tally.requests += 1;
  tally.byStatusClass.set(statusClass, (tally.byStatusClass.get(statusClass) ?? 0) + 1);
  if (!tally.slowest || line.durationMs > tally.slowest.durationMs) tally.slowest = line;
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

/** "requests: 42 in the last 60 s: 40 2xx, 1 4xx, 1 5xx; slowest POST /agents/:id/calls (212 ms)" */
export function summaryLine({ requests, byStatusClass, slowest }: Tally, elapsedMs: number) {
  const classes = [...byStatusClass].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${count} ${name}`);
  const route = slowest?.route ?? `${slowest?.method} (no route)`;
  return `requests: ${requests} in the last ${seconds(elapsedMs)} s: ${classes.join(", ")}; slowest ${route} (${Math.round(slowest?.durationMs ?? 0)} ms)`;
}

/**
 * `npm start`'s request log, which keeps the terminal readable. At INFO or below (POWERTOOLS_LOG_LEVEL=INFO) every
 * request is one line, as on AWS. Otherwise a request is printed only when it went wrong, a 4xx as a warning and a 5xx
 * as an error (the same JSON line), and every interval with traffic one summary line counts the requests by status
 * class and names the slowest.
 */
export function requestSummary(options: { intervalMs: number; print: (line: string) => void; now?: () => number }): RequestSummary {
  const now = options.now ?? Date.now;
  let since = now();
  let tally = emptyTally();
  const flush = () => {
    const ended = tally;
    const elapsedMs = now() - since;
    tally = emptyTally();
    since = now();
    if (ended.requests > 0) options.print(summaryLine(ended, elapsedMs));
  };
  const timer = setInterval(flush, options.intervalMs);
  timer.unref();
  const log: RequestLog = (line) => {
    if (everyRequestLogged()) return lineEachRequest(line);
    count(tally, line);
    if (line.status >= 500) logger.error("request", line);
    else if (line.status >= 400) logger.warn("request", line);
  };
  return { log, flush, stop: () => clearInterval(timer) };
}
