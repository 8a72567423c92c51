// Command lines in `npm run bench`: what reading one costs, the guard's overhead on an ordinary run_command line beside
// a tool no policy names, and whether /health stays quick while two agents send the worst lines with 1,000 policies.
import { performance } from "node:perf_hooks";
import { callFacts } from "../../packages/core/src/policy/facts/index";
import { builtinGroups } from "../../packages/core/src/builtin/groups";
import { MAX_COMMANDS, MAX_PATHS } from "../../packages/core/src/policy/facts/shell/line";
import type { ToolDefinition } from "../../packages/core/src/tool/schema";
import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { measureBeside, overheadVsFloor } from "./beside";
import type { Measured } from "./beside";
import { httpClient, ms, percentile } from "./support";
import type { HttpClient, Note, Out } from "./support";

const FACTS_WARMUP = 2_000;
const FACTS_MEASURED = 20_000;
const WARMUP_CALLS = 100;
const MEASURED_CALLS = 500;
const HOSTILE_SECONDS = 20;
const HEALTH_EVERY_MS = 25;

/** What an agent typically sends: a build-and-test line, twenty simple commands long with its pipes and redirections. */
export const TWENTY_COMMANDS = [
  "cd packages/core",
  "git status --short",
  "git diff --stat HEAD~1 -- src",
  "npm ci --no-audit",
  "npm run build 2>&1 | tail -n 20",
  "npm test -- --run > test.log",
  "grep -c passed test.log",
  "ls -la dist",
  "find src -name '*.ts' -newer package.json",
  "wc -l src/index.ts",
  "head -n 5 README.md",
  "sed -n '1,10p' src/index.ts",
  "awk '{ print $1 }' test.log | sort | uniq -c",
  "node scripts/check.js",
  "python -m pytest -q tests",
  "make lint",
  "echo done",
].join(" && ");

/** An ordinary run_command line, as in the guard's overhead phase. */
const ORDINARY_LINE = "git status --short && npm test -- --run";

const runCommand = () => builtinGroups().flatMap((group) => group.tools).find((tool) => tool.function.name === "run_command") as ToolDefinition;

/** Microseconds for the facts of a 20-command line: the parse, the wrappers, the paths, as the guard derives them. */
export function benchCommandFacts(out: Out) {
  const definition = runCommand();
  const args = { command: TWENTY_COMMANDS, cwd: ".", timeoutMs: 30_000 };
  const commands = (callFacts(definition, args, "/work/app") as { commands: unknown[] }).commands.length;
  for (let n = 0; n < FACTS_WARMUP; n++) callFacts(definition, args, "/work/app");
  const samples: number[] = [];
  for (let n = 0; n < FACTS_MEASURED; n++) {
    const started = performance.now();
    callFacts(definition, args, "/work/app");
    samples.push((performance.now() - started) * 1000);
  }
  out("command_facts_simple_commands", commands);
  out("command_facts_p50_us", percentile(samples, 50).toFixed(1));
  out("command_facts_p99_us", percentile(samples, 99).toFixed(1));
}

type Setup = {
  api: HttpClient;
  url: string;
  admin: { token: string };
  executorUrl: string;
  floor: DynamoFloor;
  recorder: DynamoRecorder;
  /** A direct call to the executor, as the main phase makes it. */
  direct: () => Promise<number>;
};

/**
 * The guard's overhead on an ordinary run_command line (the shipped policies read its commands and paths, Cedar is
 * asked) beside a tool no policy names, interleaved call by call, each over the floor of its own DynamoDB requests.
 */
export async function benchRunCommandOverhead({ api, admin, executorUrl, floor, recorder, direct }: Setup, out: Out, note: Note) {
  await api.json("PUT", "/groups/command/executor", 200, { ...admin, body: { type: "http", url: `${executorUrl}/run` } });
  await api.json("PATCH", "/tools/run_command/policy", 200, { ...admin, body: { rateLimit: { perMinute: 1_000_000, perHour: 10_000_000 }, repeatLimit: 0 } });
  const role = await api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-commands", rolePrompt: "Run commands.", toolGroups: ["bench_http", "command"], workspaceRoot: "/work/app" } });
  const { agent, token } = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-commands-agent" } });
  let sequence = 0;
  const call = async (tool: string, args: Record<string, unknown>): Promise<Measured> => {
    recorder.begin();
    const timed = await api.timed("POST", `/agents/${agent.id}/calls`, 200, { token, body: { tool, arguments: args } }).finally(() => (requests = recorder.end()));
    if (!timed.response.text.includes('"completed"')) throw new Error(`${tool} did not complete: ${timed.response.text}`);
    return { ms: timed.ms, requests };
  };
  let requests: DynamoRequest[] = [];
  const command = () => call("run_command", { command: `${ORDINARY_LINE} # ${sequence++}` });
  const plain = () => call("bench_echo", { i: sequence, text: `call ${sequence++}` });
  const phase = await measureBeside(command, plain, floor, direct, WARMUP_CALLS, MEASURED_CALLS);
  out("guard_overhead_vs_floor_run_command", overheadVsFloor(phase.first, phase.firstFloor, phase.direct).toFixed(2));
  out("guard_overhead_vs_floor_same_phase_no_policy", overheadVsFloor(phase.second, phase.secondFloor, phase.direct).toFixed(2));
  out("guard_run_command_minus_no_policy_p50_ms", ms(percentile(phase.first, 50) - percentile(phase.second, 50)));
  note(`run_command phase p50s (ms): guarded ${ms(percentile(phase.first, 50))} / ${ms(percentile(phase.second, 50))}, floors ${ms(percentile(phase.firstFloor, 50))} / ${ms(percentile(phase.secondFloor, 50))}, direct ${ms(percentile(phase.direct, 50))} (run_command "${ORDINARY_LINE}" / bench_echo)`);
  return { roleId: role.id };
}

/** The costliest line toolgate reads: 256 simple commands, each naming a file of its own, within run_command's 10,000 characters. */
export const HOSTILE_LINE = Array.from({ length: MAX_COMMANDS }, (_, i) => `c${i} ${i < MAX_PATHS ? `./${i}` : ""}`).join(";");

/**
 * /health's latency while two agents keep sending the costliest lines, with 1,000 policies stored that all apply to
 * run_command (each line puts 256 questions to Cedar over all of them).
 */
export async function benchHostileLines({ api, url, admin }: Setup, roleId: string, out: Out, note: Note) {
  const { policies } = await api.json("GET", "/policies", 200, admin);
  const room = 1_000 - policies.length;
  for (let n = 0; n < room; n++) {
    const cedar =
      n % 2 === 0
        ? `forbid (principal, action == Action::"run_command", resource) when { context.command like "never-${n} *" && context.path like "/never/${n}/*" };`
        : `@effect("ask")\npermit (principal, action == Action::"run_command", resource) when { context.program == "never-${n}" || context.flags.contains("--never-${n}") };`;
    await api.json("PUT", `/policies/bench-hostile-${n}`, 201, { ...admin, body: { scope: "system", cedar } });
  }
  const agents = await Promise.all(
    [0, 1].map(async (n) => (await api.json("POST", "/agents", 201, { ...admin, body: { roleId, name: `bench-hostile-${n}` } })) as { agent: { id: string }; token: string }),
  );
  let sending = true;
  let sent = 0;
  let slowestCall = 0;
  const senders = agents.map(async ({ agent, token }) => {
    const client = httpClient(url);
    while (sending) {
      const started = performance.now();
      const response = await client.send("POST", `/agents/${agent.id}/calls`, { token, body: { tool: "run_command", arguments: { command: HOSTILE_LINE } } });
      if (response.status !== 200) throw new Error(`a hostile line answered ${response.status}: ${response.text.slice(0, 300)}`);
      slowestCall = Math.max(slowestCall, performance.now() - started);
      sent++;
    }
    client.close();
  });
  const health = httpClient(url);
  const samples: number[] = [];
  const until = performance.now() + HOSTILE_SECONDS * 1000;
  while (performance.now() < until) {
    samples.push((await health.timed("GET", "/health", 200)).ms);
    await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
  }
  sending = false;
  await Promise.all(senders);
  health.close();
  out("health_p50_ms_under_hostile_lines", ms(percentile(samples, 50)));
  out("health_p99_ms_under_hostile_lines", ms(percentile(samples, 99)));
  out("hostile_lines_per_second", (sent / HOSTILE_SECONDS).toFixed(1));
  note(`hostile lines: ${HOSTILE_LINE.length} characters, ${MAX_COMMANDS} simple commands; ${sent} sent by 2 agents in ${HOSTILE_SECONDS} s with 1,000 policies stored, the slowest answered in ${ms(slowestCall)} ms; /health asked ${samples.length} times`);
  for (let n = 0; n < room; n++) await api.json("DELETE", `/policies/bench-hostile-${n}`, 204, admin);
}
