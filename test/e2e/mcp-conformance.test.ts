import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startBearerProxy } from "../support/bearer-proxy";
import type { BearerProxy } from "../support/bearer-proxy";
import { inParallel, installSuite, listServerScenarios, runScenario, SUITE_VERSION } from "../support/conformance";
import type { ScenarioOutcome, ScenarioRun } from "../support/conformance";
import { startConformanceUpstream } from "../support/conformance-upstream";
import type { ConformanceUpstream } from "../support/conformance-upstream";
import { startConformanceUpstreamV1 } from "../support/conformance-upstream-v1";
import { startLocalProcess } from "../support/local-process";
import type { LocalProcess } from "../support/local-process";

/** The revisions a 2025-era server speaks; the v2 upstream and toolgate speak these and 2026-07-28. */
const ERA_2025 = ["2025-03-26", "2025-06-18", "2025-11-25"];
const ALL_REVISIONS = [...ERA_2025, "2026-07-28"];
/** Scenarios of the suite's extensions (Tasks, Skills): they name no revision, and docs/mcp.md says why they are not run. */
const isExtension = (revisions: string[]) => revisions.includes("extension");

/**
 * What toolgate's own /mcp (native tools only, no upstream) cannot pass because the scenario needs fixtures a server
 * written for the suite has: its named tools, resources and prompts. docs/mcp.md gives the same reasons.
 */
const NOT_FOR_OWN_MCP: Array<[RegExp, string]> = [
  [/^tools-call-|^elicitation-|^json-schema-2020-12$|^server-sse-polling$/, "calls the suite's own tools (test_*), which only a server written for the suite has"],
  [/^input-required-result-/, "calls the suite's multi-round-trip tools and prompt, which only a server written for the suite has"],
  [/^resources-(read|templates|subscribe|unsubscribe)|^prompts-get-|^completion-complete$/, "reads the suite's own resources and prompts (test://static-text, test_simple_prompt...)"],
  [/^http-custom-header-server-validation$/, "needs a tool with an x-mcp-header parameter"],
  [/^server-stateless$/, "probes capabilities, streams and logging with the suite's diagnostic tools (test_missing_capability...)"],
];
/**
 * What cannot apply to a governed gateway, through toolgate or on its own /mcp: DNS-rebinding protection is the
 * defence of a local server without authentication, and /mcp takes only requests with an agent's token (which the
 * test's proxy adds, as a client's configured header would). docs/mcp.md gives the same reason.
 */
const NOT_FOR_A_GATEWAY = ["dns-rebinding-protection"];
const reasonNotForOwn = (scenario: string) =>
  NOT_FOR_A_GATEWAY.includes(scenario) ? "a gateway with authentication" : NOT_FOR_OWN_MCP.find(([pattern]) => pattern.test(scenario))?.[1];
const forAGateway = (run: ScenarioRun) => !NOT_FOR_A_GATEWAY.includes(run.scenario);

const PARALLEL = 4;

/**
 * The suite calls the same tool with the same arguments once per scenario and revision (test_image_content three times
 * in a row), which toolgate's doom-loop check refuses from the third time; a deployment serving such a client sets it so.
 */
const SUITE_SETTINGS = { TOOLGATE_DOOM_LOOP_THRESHOLD: "1000" };

/**
 * What passes directly and not yet through toolgate, each with its reason (docs/mcp.md, "Conformance", says the same).
 * A gap that closes is printed, to be taken off this list; one not on it fails the test.
 */
const KNOWN_GAPS: Record<string, string> = {
  "v2 through toolgate | server-stateless @ 2026-07-28":
    "a timing gap, not a wrong answer: ServerNoLogWithoutLogLevel reads test_logging_tool's answer for 500 ms; toolgate sends what the upstream sends (one JSON body, the result, no log message), but a governed call answers only once its admission and its outcome are written to DynamoDB Local, around the upstream's answer: 100-250 ms on an idle 2-CPU machine, over 500 ms when this run's four scenarios at a time share it with other work (the heaviest load also failed the 600 ms stream and 800 ms listen checks), and these are the v2 toolgate's first governed calls, while its DynamoDB Local's JIT still compiles. It passes alone (5 times of 5) and in full runs on an otherwise quiet machine",
};

let home: string;
let upstreamV1: ConformanceUpstream;
let upstreamV2: ConformanceUpstream;
/** Two toolgate processes, one in front of each upstream: both upstreams name their tools alike, and a tool name belongs to one group. */
let stackV1: LocalProcess;
let stackV2: LocalProcess;
const proxies: BearerProxy[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "toolgate-conformance-"));
  [upstreamV1, upstreamV2, stackV1, stackV2] = await Promise.all([
    startConformanceUpstreamV1(),
    startConformanceUpstream([], { modern: true }),
    startLocalProcess(join(home, "toolgate-v1"), SUITE_SETTINGS),
    startLocalProcess(join(home, "toolgate-v2"), SUITE_SETTINGS),
    installSuite(),
  ]);
}, 150_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await Promise.all([stackV1?.stop("SIGTERM"), stackV2?.stop("SIGTERM")]);
  await Promise.all([upstreamV1?.close(), upstreamV2?.close()]);
  if (home) await rm(home, { recursive: true, force: true });
});

/** An agent whose role holds only the given groups, and its /mcp behind a proxy that adds its token. */
async function agentEndpoint(stack: LocalProcess, name: string, toolGroups: string[]): Promise<string> {
  const admin = stack.adminToken;
  const role = await stack.request("POST", "/roles", admin, { name, rolePrompt: "Runs the MCP conformance suite.", toolGroups });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const agent = await stack.request("POST", "/agents", admin, { roleId: role.body.id, name: `${name}-client` });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const proxy = await startBearerProxy(`${stack.url}/mcp`, agent.body.token);
  proxies.push(proxy);
  return proxy.url;
}

async function registerUpstream(stack: LocalProcess, group: string, url: string): Promise<void> {
  const registered = await stack.request("PUT", `/groups/${group}`, stack.adminToken, {
    description: "The conformance suite's tools, served by a reference MCP server",
    executor: { type: "mcp", url },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
}

type Column = "v1 direct" | "v1 through toolgate" | "v2 direct" | "v2 through toolgate" | "toolgate's own";
const COLUMNS: Column[] = ["v1 direct", "v1 through toolgate", "v2 direct", "v2 through toolgate", "toolgate's own"];
const key = ({ scenario, revision }: ScenarioRun) => `${scenario} @ ${revision}`;
const failed = (outcome: ScenarioOutcome) => `${key(outcome)}\n    ${outcome.failures.join("\n    ")}`;

function table(runs: ScenarioRun[], cells: Map<string, Partial<Record<Column, string>>>): string {
  const header = `| scenario @ revision | ${COLUMNS.join(" | ")} |\n|---|${COLUMNS.map(() => "---").join("|")}|`;
  const rows = runs.map((run) => `| ${key(run)} | ${COLUMNS.map((column) => cells.get(key(run))?.[column] ?? "—").join(" | ")} |`);
  return [header, ...rows].join("\n");
}

test(`MCP conformance ${SUITE_VERSION} - every server scenario that passes directly against the v1 and the v2 reference upstream passes through toolgate's /mcp, and toolgate's own /mcp passes every one that applies`, async () => {
  await registerUpstream(stackV1, "conformance-v1", upstreamV1.url);
  await registerUpstream(stackV2, "conformance-v2", upstreamV2.url);
  const [throughV1, throughV2, own] = [
    await agentEndpoint(stackV1, "conformance-v1", ["conformance-v1"]),
    await agentEndpoint(stackV2, "conformance-v2", ["conformance-v2"]),
    await agentEndpoint(stackV1, "conformance-own", ["artifact"]),
  ];

  const scenarios = await listServerScenarios();
  const extensions = scenarios.filter(({ revisions }) => isExtension(revisions)).map(({ scenario }) => scenario);
  const runs = scenarios.filter(({ revisions }) => !isExtension(revisions)).flatMap(({ scenario, revisions }) => revisions.map((revision) => ({ scenario, revision })));
  const speaks = (revisions: string[]) => runs.filter((run) => revisions.includes(run.revision));
  const targets: Array<{ column: Column; url: string; runs: ScenarioRun[] }> = [
    { column: "v1 direct", url: upstreamV1.url, runs: speaks(ERA_2025) },
    { column: "v1 through toolgate", url: throughV1, runs: speaks(ERA_2025).filter(forAGateway) },
    { column: "v2 direct", url: upstreamV2.url, runs: speaks(ALL_REVISIONS) },
    { column: "v2 through toolgate", url: throughV2, runs: speaks(ALL_REVISIONS).filter(forAGateway) },
    { column: "toolgate's own", url: own, runs: speaks(ALL_REVISIONS).filter((run) => !reasonNotForOwn(run.scenario)) },
  ];
  const results = await mkdtemp(join(home, "results-"));
  const jobs = targets.flatMap(({ column, url, runs: targetRuns }) => targetRuns.map((run) => async () => ({ column, outcome: await runScenario(url, run, results) })));
  const outcomes = await inParallel(jobs, PARALLEL);

  const cells = new Map<string, Partial<Record<Column, string>>>();
  for (const run of runs) if (reasonNotForOwn(run.scenario)) cells.set(key(run), { "toolgate's own": "n/a" });
  for (const run of runs.filter((entry) => !forAGateway(entry))) {
    cells.set(key(run), { ...(ERA_2025.includes(run.revision) ? { "v1 through toolgate": "n/a" } : {}), "v2 through toolgate": "n/a", "toolgate's own": "n/a" });
  }
  for (const { column, outcome } of outcomes) cells.set(key(outcome), { ...cells.get(key(outcome)), [column]: outcome.passed ? "pass" : "FAIL" });
  const of = (column: Column) => outcomes.filter((entry) => entry.column === column).map((entry) => entry.outcome);
  const passedDirectly = (column: Column) => new Set(of(column).filter((outcome) => outcome.passed).map(key));
  const failures = (column: Column) => of(column).filter((outcome) => !outcome.passed);
  console.log(
    `${table(runs, cells)}\n\nNot run (extensions): ${extensions.join(", ")}\n\n` +
      COLUMNS.map((column) => `${column}, failing:\n${failures(column).map(failed).join("\n") || "(none)"}`).join("\n\n"),
  );

  const gapOf = (column: Column, outcome: ScenarioOutcome) => KNOWN_GAPS[`${column} | ${key(outcome)}`];
  const lostThrough = (direct: Column, through: Column) =>
    failures(through).filter((outcome) => passedDirectly(direct).has(key(outcome)) && !gapOf(through, outcome)).map(failed);
  const closedGaps = (["v1 through toolgate", "v2 through toolgate"] as const).flatMap((column) => of(column).filter((outcome) => outcome.passed && gapOf(column, outcome)).map((outcome) => `${column} | ${key(outcome)}`));
  if (closedGaps.length) console.log(`Known gaps that passed this time (take them off KNOWN_GAPS once they always do):\n${closedGaps.join("\n")}`);
  expect(lostThrough("v1 direct", "v1 through toolgate"), "passes directly against the v1 upstream, fails through toolgate").toEqual([]);
  expect(lostThrough("v2 direct", "v2 through toolgate"), "passes directly against the v2 upstream, fails through toolgate").toEqual([]);
  expect(failures("v1 direct").map(failed), "the v1 upstream is written to pass every 2025-era scenario").toEqual([]);
  expect(failures("toolgate's own").map(failed), "toolgate's own /mcp, every scenario that applies").toEqual([]);
}, 1_200_000);
