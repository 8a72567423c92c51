import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";
import { waitFor } from "../support/wait";

const ADMIN_TOKEN = "logs-e2e-admin-token-0123456789";
const started: LocalProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(started.map((stack) => stack.stop("SIGTERM")));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function start(env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-logs-"));
  dirs.push(dir);
  const stack = await startLocalProcess(dir, { TOOLGATE_IN_MEMORY: "1", TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  started.push(stack);
  return stack;
}

const jsonLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
const requestLines = (output: string) => jsonLines(output).filter((line) => line.message === "request");

const SUMMARY = /^requests: (\d+) in the last [\d.]+ s: (.+); slowest (.+) \((\d+) ms\)$/;
/** Every summary line printed so far, added up: requests by status class. */
function summed(output: string) {
  const total: Record<string, number> = {};
  for (const line of output.split("\n")) {
    const classes = line.match(SUMMARY)?.[2];
    for (const part of classes?.split(", ") ?? []) {
      const [count, statusClass] = part.split(" ");
      total[statusClass!] = (total[statusClass!] ?? 0) + Number(count);
    }
  }
  return total;
}

describe("npm start's logs", () => {
  test("npm start - requests are not printed one by one: a 4xx is a WARN line, and a summary line each interval counts them by status class", async () => {
    const stack = await start({ POWERTOOLS_LOG_LEVEL: "", TOOLGATE_LOG_SUMMARY_INTERVAL_MS: "200" });
    for (let polls = 0; polls < 5; polls++) expect((await stack.request("GET", "/groups", ADMIN_TOKEN)).status).toBe(200);
    expect((await stack.request("GET", "/roles", "not-a-token")).status).toBe(401);
    expect((await stack.request("GET", "/roles/role_missing", ADMIN_TOKEN)).status).toBe(404);

    const total = await waitFor(() => {
      const counted = summed(stack.output());
      return (counted["2xx"] ?? 0) + (counted["4xx"] ?? 0) >= 7 ? counted : undefined;
    }, "the summary lines to count the 7 requests");

    expect(stack.output()).toContain("logs:        warnings, errors and a summary of requests every 0.2 s (POWERTOOLS_LOG_LEVEL=INFO npm start prints every request)");
    expect(total).toEqual({ "2xx": 5, "4xx": 2 });
    expect(requestLines(stack.output()).map(({ level, route, status, principal }) => ({ level, route, status, principal }))).toEqual([
      { level: "WARN", route: "GET /roles", status: 401, principal: "none" },
      { level: "WARN", route: "GET /roles/:id", status: 404, principal: "admin" },
    ]);
    expect(stack.output()).not.toContain("not-a-token");
  });

  test("npm start - POWERTOOLS_LOG_LEVEL=INFO prints every request as one JSON line, as on AWS, and no summary", async () => {
    const stack = await start({ POWERTOOLS_LOG_LEVEL: "INFO", TOOLGATE_LOG_SUMMARY_INTERVAL_MS: "200" });
    expect((await stack.request("GET", "/groups", ADMIN_TOKEN)).status).toBe(200);
    expect((await stack.request("GET", "/roles", "not-a-token")).status).toBe(401);
    await waitFor(() => (requestLines(stack.output()).length >= 2 ? true : undefined), "both requests to be logged");
    expect(await stack.stop("SIGTERM")).toBe(0);

    expect(stack.output()).toContain("logs:        every request, one JSON line each (POWERTOOLS_LOG_LEVEL=INFO)");
    expect(requestLines(stack.output()).map(({ level, route, status, principal }) => ({ level, route, status, principal }))).toEqual([
      { level: "INFO", route: "GET /groups", status: 200, principal: "admin" },
      { level: "INFO", route: "GET /roles", status: 401, principal: "none" },
    ]);
    expect(stack.output()).not.toMatch(/^requests: /m);
  });
});
