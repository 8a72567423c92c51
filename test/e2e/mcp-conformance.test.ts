import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startBearerProxy } from "../support/bearer-proxy";
import type { BearerProxy } from "../support/bearer-proxy";
import { installSuite, runScenarios, SUITE_VERSION } from "../support/conformance";
import type { ScenarioOutcome } from "../support/conformance";
import { startConformanceUpstream } from "../support/conformance-upstream";
import type { ConformanceUpstream } from "../support/conformance-upstream";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

/** The suite's server scenarios about tools: the handshake, the tool list with its schemas whole, and every tool call. */
const TOOL_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "json-schema-2020-12",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-logging",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
] as const;

let home: string;
let upstream: ConformanceUpstream;
let stack: LocalProcess;
let proxy: BearerProxy;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "toolgate-conformance-"));
  [upstream, stack] = await Promise.all([startConformanceUpstream(), startLocalProcess(join(home, ".toolgate")), installSuite()]);
}, 150_000);

afterAll(async () => {
  await proxy?.close();
  await stack?.stop("SIGTERM");
  await upstream?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const summary = (outcomes: ScenarioOutcome[]) =>
  outcomes.map(({ scenario, passed, failures }) => `${passed ? "pass" : "FAIL"} ${scenario}${failures.length ? `: ${failures.join("; ")}` : ""}`).join("\n");

test(`MCP conformance ${SUITE_VERSION} - the upstream passes every tool scenario directly, and every one through toolgate's /mcp too`, async () => {
  const admin = stack.adminToken;
  const group = await stack.request("PUT", "/groups/conformance", admin, {
    description: "The conformance suite's tools, served by an upstream MCP server",
    executor: { type: "mcp", url: upstream.url },
  });
  expect(group.status, JSON.stringify(group.body)).toBe(201);
  const role = await stack.request("POST", "/roles", admin, { name: "conformance", rolePrompt: "Runs the MCP conformance suite.", toolGroups: ["conformance"] });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const agent = await stack.request("POST", "/agents", admin, { roleId: role.body.id, name: "conformance-client" });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  proxy = await startBearerProxy(`${stack.url}/mcp`, agent.body.token);

  const direct = await runScenarios(upstream.url, TOOL_SCENARIOS, await mkdtemp(join(home, "direct-")));
  const through = await runScenarios(proxy.url, TOOL_SCENARIOS, await mkdtemp(join(home, "through-")));
  console.log(`directly:\n${summary(direct)}\n\nthrough toolgate:\n${summary(through)}`);

  expect(direct.filter((outcome) => !outcome.passed).map((outcome) => outcome.scenario), summary(direct)).toEqual([]);
  expect(through.filter((outcome) => !outcome.passed).map((outcome) => outcome.scenario), summary(through)).toEqual([]);
}, 120_000);
