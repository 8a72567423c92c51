import { afterAll, beforeAll, expect, test } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Toolgate } from "@toolgate/core/toolgate";
import { api, testToolgate } from "../support/toolgate";
import type { Api, ApiResponse } from "../support/toolgate";
import { startExecutor } from "../support/executor";
import type { Executor } from "../support/executor";
import { serveToolgate } from "../support/http-server";
import type { ServedToolgate } from "../support/http-server";
import { createAgent, createRole, unique } from "../integration/helpers";
import { BYPASS_CORPUS, ORDINARY_ALLOWLISTED, ORDINARY_COMMANDS } from "./bypass-corpus";

/**
 * The bypass corpus replayed as an attacker would send it: run_command under a role with a workspace root, every
 * shipped policy enforced (the command allowlist switched on), `rm *` denied and `git push *` asked, through REST,
 * through /mcp with the SDK's client, and through call_tool. Each line must be refused (denied, or waiting for an
 * operator) and never reach the executor; ordinary developer lines must run.
 */

let toolgate: Toolgate;
let request: Api;
let served: ServedToolgate;
let executor: Executor;

type Agent = { id: string; token: string };
let direct: Agent;
let searching: Agent;
let mcp: Client;

beforeAll(async () => {
  [toolgate, executor] = await Promise.all([testToolgate(), startExecutor()]);
  request = api(toolgate);
  served = await serveToolgate(toolgate);
  const bound = await request("PUT", "/groups/command/executor", { body: { type: "http", url: `${executor.url}/run` } });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  const unlimited = await request("PATCH", "/tools/run_command/policy", { body: { rateLimit: { perMinute: 100_000, perHour: 1_000_000 } } });
  expect(unlimited.status, JSON.stringify(unlimited.body)).toBe(200);
  await setAllowlist("enforce");
  for (const [id, rule] of [
    ["no-rm", { tool: "run_command", match: "rm *", effect: "deny" }],
    ["ask-before-push", { tool: "run_command", match: "git push *", effect: "ask" }],
  ] as const) {
    const put = await request("PUT", `/policies/${id}`, { body: { scope: "system", rule } });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
  }
  const coder = await createRole(request, { name: unique("coder"), toolGroups: ["command"], workspaceRoot: "/work/app" });
  const searcher = await createRole(request, { name: unique("searcher"), toolGroups: ["command"], workspaceRoot: "/work/app", toolLoading: "search", pinnedTools: [] });
  const agentOf = async (roleId: string) => {
    const { agent, token } = await createAgent(request, roleId);
    return { id: agent.id, token };
  };
  [direct, searching] = await Promise.all([agentOf(coder.id), agentOf(searcher.id)]);
  mcp = new Client({ name: "bypass-replay", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${direct.token}` } } }));
});

afterAll(async () => {
  await mcp?.close();
  await served?.close();
  await executor?.close();
});

async function setAllowlist(mode: "enforce" | "log_only") {
  const { scope, cedar, description } = (await request("GET", "/policies/command-allowlist")).body;
  const put = await request("PUT", "/policies/command-allowlist", { body: { scope, mode, cedar, description } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}

type Outcome = "denied" | "asks" | "too complex" | "ran" | string;

const REFUSALS: Record<string, Outcome> = { policy_denied: "denied", awaiting_confirmation: "asks", command_too_complex: "too complex", unreadable_command: "unreadable" };

const restOutcome = (response: ApiResponse): Outcome => {
  if (response.status === 200 && response.body.status === "completed") return "ran";
  if (response.status === 202 && response.body.status === "awaiting_confirmation") return "asks";
  return REFUSALS[response.body.error] ?? `${response.status} ${JSON.stringify(response.body)}`;
};

const CHANNELS: Record<string, (command: string) => Promise<Outcome>> = {
  rest: async (command) => restOutcome(await request("POST", `/agents/${direct.id}/calls`, { token: direct.token, body: { tool: "run_command", arguments: { command } } })),
  mcp: async (command) => {
    const result = (await mcp.callTool({ name: "run_command", arguments: { command } })) as { isError?: boolean; _meta?: { code?: string } };
    if (!result.isError) return "ran";
    return REFUSALS[result._meta?.code ?? ""] ?? `isError ${JSON.stringify(result)}`;
  },
  call_tool: async (command) =>
    restOutcome(await request("POST", `/agents/${searching.id}/calls`, { token: searching.token, body: { tool: "call_tool", arguments: { name: "run_command", arguments: { command } } } })),
};

/** Lines sent at once on each channel: the replay is hundreds of calls, not a timing. */
const CONCURRENCY = 8;
/** The replay's calls take a few milliseconds each; a slow shared machine may take minutes for all of them. */
const REPLAY_TIMEOUT_MS = 300_000;

/** Every line through every channel, a few at a time, each with its outcome. */
async function replay(lines: readonly string[]): Promise<Array<{ line: string; channel: string; outcome: Outcome }>> {
  const sends = lines.flatMap((line) => Object.entries(CHANNELS).map(([channel, send]) => ({ line, channel, send })));
  const outcomes: Array<{ line: string; channel: string; outcome: Outcome }> = [];
  for (let next = 0; next < sends.length; next += CONCURRENCY)
    outcomes.push(...(await Promise.all(sends.slice(next, next + CONCURRENCY).map(async ({ line, channel, send }) => ({ line, channel, outcome: await send(line) })))));
  return outcomes;
}

const reachedExecutor = () => new Set(executor.requestsFor("run_command").map((received) => received.body.arguments.command as string));

test("bypass corpus - every line from the published reports is denied or waits for an operator, through REST, /mcp and call_tool, and none reaches the executor", { timeout: REPLAY_TIMEOUT_MS }, async () => {
  expect(BYPASS_CORPUS.length).toBeGreaterThanOrEqual(100);
  const sources = new Map(BYPASS_CORPUS.map(({ line, source }) => [line, source]));
  const outcomes = await replay(BYPASS_CORPUS.map(({ line }) => line));
  const tally: Record<string, number> = {};
  for (const { outcome } of outcomes) tally[outcome] = (tally[outcome] ?? 0) + 1;
  const letThrough = outcomes.filter(({ outcome }) => outcome !== "denied" && outcome !== "asks" && outcome !== "too complex");
  expect(letThrough.map(({ line, channel, outcome }) => `${channel}: ${JSON.stringify(line)} → ${outcome} (${sources.get(line)})`)).toEqual([]);
  const reached = reachedExecutor();
  expect(BYPASS_CORPUS.filter(({ line }) => reached.has(line))).toEqual([]);
  expect(tally.denied).toBeGreaterThan(0);
  expect(tally.asks).toBeGreaterThan(0);
});

test("ordinary developer lines - none is refused: allowlisted ones with the allowlist enforced, any program with it log-only", { timeout: REPLAY_TIMEOUT_MS }, async () => {
  const outcomes = await replay(ORDINARY_ALLOWLISTED);
  await setAllowlist("log_only");
  outcomes.push(...(await replay(ORDINARY_COMMANDS)));
  await setAllowlist("enforce");
  expect(outcomes.filter(({ outcome }) => outcome !== "ran").map(({ line, channel, outcome }) => `${channel}: ${JSON.stringify(line)} → ${outcome}`)).toEqual([]);
  const reached = reachedExecutor();
  expect([...ORDINARY_ALLOWLISTED, ...ORDINARY_COMMANDS].filter((line) => !reached.has(line))).toEqual([]);
});

test("an operator allows specific code execution with a one-line rule; an explicit ask or deny still wins over it", async () => {
  const send = CHANNELS.rest!;
  await setAllowlist("log_only");
  expect(await send("npx prettier --check .")).toBe("asks");
  const put = await request("PUT", "/policies/allow-prettier", { body: { scope: "system", rule: { tool: "run_command", match: "npx prettier *", effect: "allow" } } });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  expect(await send("npx prettier --check .")).toBe("ran");
  expect(await send("npx prettier --check . && npx cowsay hi")).toBe("asks");
  const everything = await request("PUT", "/policies/allow-all", { body: { scope: "system", rule: { tool: "run_command", match: "*", effect: "allow" } } });
  expect(everything.status).toBe(201);
  expect(await send("git push origin main")).toBe("asks");
  expect(await send("rm -rf build")).toBe("denied");
  expect(await send("make build")).toBe("ran");
  for (const id of ["allow-prettier", "allow-all"]) expect((await request("DELETE", `/policies/${id}`)).status).toBe(204);
  await setAllowlist("enforce");
  expect(await send("npx prettier --check .")).toBe("asks");
});

test("a line of more than 256 simple commands, or nested deeper than 16, is 400 command_too_complex, recorded as refused", async () => {
  for (const command of [Array.from({ length: 257 }, (_, i) => `echo ${i}`).join(";"), `${"( ".repeat(17)}ls${" )".repeat(17)}`]) {
    const refused = await request("POST", `/agents/${direct.id}/calls`, { token: direct.token, body: { tool: "run_command", arguments: { command } } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({ error: "command_too_complex", toolName: "run_command", argument: "command", recoverable: true });
    const record = await request("GET", `/agents/${direct.id}/calls/${refused.body.callId}`);
    expect(record.body).toMatchObject({ status: "refused", error: { code: "command_too_complex" } });
  }
});

test("a path a command line names is checked against the workspace root, and the refusal names it", async () => {
  const refused = await request("POST", `/agents/${direct.id}/calls`, { token: direct.token, body: { tool: "run_command", arguments: { command: "cat notes.txt /home/dev/toolgate/.toolgate/admin-token" } } });
  expect(refused.status).toBe(403);
  expect(refused.body.policies).toContain("workspace-paths");
  expect(refused.body.message).toContain('The path "/home/dev/toolgate/.toolgate/admin-token" is outside the workspace root "/work/app"');
});
