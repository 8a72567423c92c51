import { execFile } from "node:child_process";
import { access, mkdtemp, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) and the Node it needs (22), installed as npm
 * packages into a cache of the tests' own, never as the project's dependencies or engine.
 */
export const SUITE_VERSION = "0.1.16";
const NODE_PACKAGE = "node@22";
const CACHE = resolve(import.meta.dirname, "../../node_modules/.cache/toolgate-mcp-conformance", SUITE_VERSION);
const NODE = join(CACHE, "node_modules/.bin/node");
const CLI = join(CACHE, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

const run = promisify(execFile);
const exists = (path: string) => access(path).then(() => true, () => false);

/** Installs the suite and Node 22 into the cache unless they are there already (npm's network, nothing else). */
export async function installSuite(): Promise<void> {
  if ((await exists(NODE)) && (await exists(CLI))) return;
  await run("npm", ["install", "--prefix", CACHE, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", NODE_PACKAGE, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], {
    env: { ...process.env, npm_config_workspaces: "false" },
    maxBuffer: 16 * 1024 * 1024,
  });
}

export type Check = { id: string; name: string; status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"; errorMessage?: string };
export type ScenarioOutcome = { scenario: string; passed: boolean; failures: string[] };

/** The environment of the suite's process: this one's, without what points Node 20 at this project's loaders. */
const suiteEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_OPTIONS" && !name.startsWith("VITEST")));

/** Runs one server scenario against an MCP endpoint; it passes when it made checks and none failed (warnings allowed). */
export async function runScenario(url: string, scenario: string, resultsRoot: string): Promise<ScenarioOutcome> {
  const output = await mkdtemp(join(resultsRoot, `${scenario}-`));
  const printed = await run(NODE, [CLI, "server", "--url", url, "--scenario", scenario, "-o", output], { env: suiteEnv(), maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
  );
  const [written] = await readdir(output);
  if (!written) return { scenario, passed: false, failures: [`the suite wrote no results:\n${printed}`] };
  const checks = JSON.parse(await readFile(join(output, written, "checks.json"), "utf8")) as Check[];
  const failures = checks.filter((check) => check.status === "FAILURE").map((check) => `${check.name}: ${check.errorMessage ?? "failed"}`);
  return { scenario, passed: checks.length > 0 && failures.length === 0, failures };
}

/** Every scenario against the endpoint, a few at a time (each is its own process). */
export async function runScenarios(url: string, scenarios: readonly string[], resultsRoot: string, parallel = 3): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  const pending = [...scenarios];
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) outcomes.push(await runScenario(url, next, resultsRoot));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return scenarios.map((scenario) => outcomes.find((outcome) => outcome.scenario === scenario)!);
}
