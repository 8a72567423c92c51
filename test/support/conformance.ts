import { execFile } from "node:child_process";
import { access, mkdtemp, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) and the Node it needs (22), installed as npm
 * packages into a cache of the tests' own, never as the project's dependencies or engine.
 */
export const SUITE_VERSION = "0.2.0-alpha.12";
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
/** A scenario at one protocol revision it lists (`extension` for the extensions' scenarios, which name none). */
export type ScenarioRun = { scenario: string; revision: string };
export type ScenarioOutcome = ScenarioRun & { passed: boolean; failures: string[] };

/** The environment of the suite's process: this one's, without what points Node 20 at this project's loaders. */
const suiteEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_OPTIONS" && !name.startsWith("VITEST")));

/** Every server scenario of the suite with the revisions it lists, as `conformance list --server` prints them. */
export async function listServerScenarios(): Promise<Array<{ scenario: string; revisions: string[] }>> {
  const { stdout } = await run(NODE, [CLI, "list", "--server"], { env: suiteEnv() });
  return [...stdout.matchAll(/^\s+- (\S+) \[([^\]]+)\]/gm)].map(([, scenario, revisions]) => ({ scenario: scenario!, revisions: revisions!.split(",") }));
}

/** Runs one server scenario at one revision; it passes when it made checks and none failed (warnings allowed). */
export async function runScenario(url: string, { scenario, revision }: ScenarioRun, resultsRoot: string): Promise<ScenarioOutcome> {
  const output = await mkdtemp(join(resultsRoot, `${scenario}-${revision}-`));
  const args = [CLI, "server", "--url", url, "--scenario", scenario, "-o", output, ...(revision === "extension" ? [] : ["--spec-version", revision])];
  const printed = await run(NODE, args, { env: suiteEnv(), maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
  );
  const [written] = await readdir(output);
  if (!written) return { scenario, revision, passed: false, failures: [`the suite wrote no results:\n${printed}`] };
  const checks = JSON.parse(await readFile(join(output, written, "checks.json"), "utf8")) as Check[];
  const failures = checks.filter((check) => check.status === "FAILURE").map((check) => `${check.name}: ${check.errorMessage ?? "failed"}`);
  return { scenario, revision, passed: checks.length > 0 && failures.length === 0, failures };
}

/** Runs jobs a few at a time, each its own process, and gives their outcomes in the jobs' order. */
export async function inParallel<T>(jobs: Array<() => Promise<T>>, parallel: number): Promise<T[]> {
  const outcomes: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < jobs.length; index = next++) outcomes[index] = await jobs[index]!();
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return outcomes;
}
