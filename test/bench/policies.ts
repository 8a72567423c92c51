// Argument policies in `npm run bench`: what one decision costs in-process, and the policies the guard then uses.
import { performance } from "node:perf_hooks";
import { PolicyIndex } from "../../packages/core/src/policy/applicable";
import { readPolicy } from "../../packages/core/src/policy/cedar/read";
import { decideCall } from "../../packages/core/src/policy/evaluate";
import type { PolicyInput, StoredPolicy } from "../../packages/core/src/policy/schema";
import { compileRule } from "../../packages/core/src/policy/short-rule";
import type { ToolDefinition } from "../../packages/core/src/tool/schema";
import { percentile } from "./support";
import type { Out } from "./support";

export const POLICY_TOOLS = 40;
export const POLICIES = 200;
const WARMUP = 500;
const MEASURED = 5_000;

/** Who the bench's caller is, so that the layers of its policies apply to it (and those of another agent do not). */
export type Caller = { agentId: string; roleId: string; roleName: string; department: string; otherAgentId: string };

/** Five policies per tool: system, the caller's department, role and agent, and another agent's (which never applies). */
const SCOPES = (caller: Caller) => ["system", `department:${caller.department}`, `role:${caller.roleId}`, `agent:${caller.agentId}`, `agent:${caller.otherAgentId}`];

/** The bench's tool names: `first`, then tools named after it. */
export const policyToolNames = (first: string) => [first, ...Array.from({ length: POLICY_TOOLS - 1 }, (_, n) => `${first}_${n + 1}`)];

/** 200 policies over 40 tools and the four layers, none of which matches the bench's calls (their text never starts "forbidden"). */
export function benchPolicyInputs(tools: readonly string[], caller: Caller): Array<{ id: string; input: PolicyInput }> {
  const scopes = SCOPES(caller);
  return Array.from({ length: POLICIES }, (_, n) => {
    const tool = tools[n % tools.length]!;
    const scope = scopes[Math.floor(n / tools.length) % scopes.length]!;
    const effect = (["deny", "ask", "allow"] as const)[n % 3]!;
    return { id: `bench-${n}`, input: { scope, mode: "enforce", rule: { tool, argument: "text", match: `forbidden ${n} *`, effect } } };
  });
}

const definition = (name: string): ToolDefinition => ({
  type: "function",
  function: { name, description: "Echoes its input.", parameters: { type: "object", properties: { i: { type: "integer" }, text: { type: "string" } }, required: ["i"] } },
});

/** policy_decision_p50_us/_p99_us: the guard's decision about one call with 200 policies stored, given to Cedar only those that apply. */
export async function benchPolicyDecisions(out: Out) {
  const caller: Caller = { agentId: "agt_bench", roleId: "rol_bench", roleName: "bench", department: "bench", otherAgentId: "agt_other" };
  const tools = policyToolNames("bench_echo");
  const stored: StoredPolicy[] = [];
  for (const { id, input } of benchPolicyInputs(tools, caller)) {
    if (!("rule" in input)) continue;
    const rule = compileRule(input.rule, definition(input.rule.tool));
    if ("problem" in rule) throw new Error(`bench policy ${id}: ${rule.problem}`);
    const { cedar } = rule;
    const read = await readPolicy(cedar);
    if (!read.ok) throw new Error(`bench policy ${id}: ${read.problems[0]!.message}`);
    stored.push({ id, version: 1, scope: input.scope, mode: "enforce", cedar, createdAt: "", updatedAt: "", ...read.read });
  }
  const index = new PolicyIndex(stored);
  const principal = { ...caller, level: null };
  // As in the guard, a tool's definition is one object per catalog snapshot (what is derived from it is cached on it).
  const definitions = new Map(tools.map((tool) => [tool, definition(tool)]));
  const call = (i: number) => {
    const tool = tools[i % tools.length]!;
    return decideCall({
      principal,
      definition: definitions.get(tool)!,
      group: "bench_http",
      args: { i, text: `call ${i}` },
      root: null,
      revision: 1,
      applicable: index.applicable(tool, "bench_http", caller),
    });
  };
  for (let i = 0; i < WARMUP; i++) await call(i);
  const us: number[] = [];
  for (let i = 0; i < MEASURED; i++) {
    const started = performance.now();
    const { decision } = await call(i);
    us.push((performance.now() - started) * 1000);
    if (decision.effect !== "none") throw new Error(`bench decision ${i} matched ${decision.policies.join(", ")}`);
  }
  out("policy_decision_policies_stored", stored.length);
  out("policy_decision_policies_given", index.applicable(tools[0]!, "bench_http", caller).enforce.length);
  out("policy_decision_p50_us", percentile(us, 50).toFixed(1));
  out("policy_decision_p99_us", percentile(us, 99).toFixed(1));
}
