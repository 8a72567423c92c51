import { expect, test } from "vitest";
import { EXECUTOR_TYPES, executorSummary, executorTimeoutMs, isBuiltinOnly, runsIn } from "./types";

test("EXECUTOR_TYPES - every executor type, in the order the API documents them", () => {
  expect(EXECUTOR_TYPES).toEqual(["http", "mcp", "stdio", "client", "native"]);
});

test("executor facts - who runs a call, its own timeout, what may be shown, and which only toolgate's groups use", () => {
  const http = { type: "http", url: "https://tools.example/call", headers: { Authorization: { secret: "KEY" } }, timeoutMs: 5_000 } as const;
  const mcp = { type: "mcp", url: "https://mcp.example/mcp", toolPrefix: "gh" } as const;
  const stdio = { type: "stdio" as const, command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], timeoutMs: 9_000 };
  expect([http, mcp, stdio, { type: "client" } as const, { type: "native" } as const].map((executor) => [runsIn(executor), executorTimeoutMs(executor), executorSummary(executor)])).toEqual([
    ["toolgate", 5_000, { type: "http", url: "https://tools.example/call" }],
    ["toolgate", undefined, { type: "mcp", url: "https://mcp.example/mcp" }],
    ["toolgate", 9_000, { type: "stdio" }],
    ["client", undefined, { type: "client" }],
    ["toolgate", undefined, { type: "native" }],
  ]);
  expect(EXECUTOR_TYPES.filter(isBuiltinOnly)).toEqual(["native"]);
});
