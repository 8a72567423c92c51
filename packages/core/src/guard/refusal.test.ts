import { expect, test } from "vitest";
import { refusals } from "../access/index";
import { refusal } from "./refusal";

test("refusal - every refusal of the guard carries recoverable, true exactly when changing the request can succeed", () => {
  const cases = [
    [refusals.disabled("t"), 403, "tool_disabled", false],
    [refusals.permission("t", "why"), 403, "permission_denied", false],
    [refusal.invalidArguments("t", [{ path: "a", message: "is required" }]), 400, "invalid_arguments", true],
    [refusal.rateLimited("t", "perMinute", 12), 429, "rate_limited", true],
    [refusal.doomLoop("t", 2, 2), 429, "doom_loop_detected", true],
    [refusal.tooDeep("t"), 400, "json_too_deep", true],
    [refusal.noExecutor("t", "g"), 501, "no_executor", false],
  ] as const;
  for (const [error, status, code, recoverable] of cases) {
    expect(error.status, code).toBe(status);
    expect(error.toBody(), code).toMatchObject({ error: code, recoverable, toolName: "t" });
    expect(error.message, code).toContain('"t"');
  }
});

test("refusal.invalidArguments - lists the details and tells the model to rewrite the arguments", () => {
  const details = [
    { path: "query", message: "is required" },
    { path: "limit", message: "must be an integer" },
  ];
  const body: Record<string, unknown> = refusal.invalidArguments("search", details).toBody();
  expect(body.details).toEqual(details);
  expect(body.message).toMatch(/query is required/);
  expect(body.message).toMatch(/Rewrite the arguments/);
});

test("refusal.rateLimited - says which limit and when to retry", () => {
  const body: Record<string, unknown> = refusal.rateLimited("search", "perHour", 42).toBody();
  expect(body).toMatchObject({ limit: "perHour", retryAfterSeconds: 42 });
  expect(body.message).toMatch(/42 s/);
});

test("refusal.permission - the reason is in the message and the body", () => {
  const body: Record<string, unknown> = refusals.permission("search", "it needs level 3 or above").toBody();
  expect(body.reason).toBe("it needs level 3 or above");
  expect(body.message).toContain("it needs level 3 or above");
});

test("refusal.doomLoop - counts the identical calls that ran, however often the refused one is retried", () => {
  const message = refusal.doomLoop("get_status", 2, 2).message;
  expect(message).toContain('"get_status" has just run 2 times in a row');
  expect(message).toContain("at most 2 identical calls");
  expect(message).not.toMatch(/call number/);
  expect(refusal.doomLoop("t", 1, 1).message).toContain("run 1 time in a row");
});
