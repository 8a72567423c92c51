// Tools in layers in `npm run bench`: an agent's tool list in an org of departments and personal tools, beside a flat org.
import type { HttpClient, Note, Out } from "./support";
import { inShuffledRounds, percentile } from "./support";

const AGENTS = 1_000;
const DEPARTMENTS = 20;
const PERSONAL_EVERY = 10;
const ROUNDS = 2;

const tool = (name: string, description: string) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: { query: { type: "string" } } } },
});

/** Agents of one role, each with its token; `department(n)` says the nth agent's, if any. */
async function org(api: HttpClient, admin: { token: string }, name: string, department: (n: number) => string | undefined) {
  const role = await api.json("POST", "/roles", 201, { ...admin, body: { name, rolePrompt: "Bench role.", toolGroups: null } });
  const agents: Array<{ id: string; token: string }> = [];
  for (let n = 0; n < AGENTS; n++) {
    const dept = department(n);
    const created = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: `${name}-${n}`, ...(dept ? { department: dept } : {}) } });
    agents.push({ id: created.agent.id, token: created.token });
  }
  return agents;
}

/**
 * visible_tools_layered_p50_ms: GET /agents/:id/tools, warm, for agents of an org of 1,000 in 20 departments (each with
 * a group of its own, one of whose tools has a name everyone's network group has) where every tenth agent has a group
 * of its own, beside the same reads in an org of 1,000 with no department or personal groups, interleaved.
 */
export async function benchLayeredVisibleTools(api: HttpClient, admin: { token: string }, executorUrl: string, out: Out, note: Note) {
  const executor = { type: "http", url: executorUrl };
  const departmentOf = (n: number) => `bench_dept_${n % DEPARTMENTS}`;
  const layered = await org(api, admin, "bench-layered", departmentOf);
  const flat = await org(api, admin, "bench-flat", () => undefined);
  for (let d = 0; d < DEPARTMENTS; d++)
    await api.json("PUT", `/groups/bench_dept_group_${d}`, 201, {
      ...admin,
      body: {
        scope: `department:bench_dept_${d}`,
        description: `Department ${d}'s tools.`,
        executor,
        tools: [tool("http_request", `Fetch through department ${d}'s proxy.`), ...[1, 2, 3, 4].map((t) => tool(`dept_${d}_tool_${t}`, `Department ${d}'s tool ${t}.`))],
      },
    });
  for (let n = 0; n < AGENTS; n += PERSONAL_EVERY)
    await api.json("PUT", `/groups/bench_own_${n}`, 201, {
      ...admin,
      body: { scope: `agent:${layered[n]!.id}`, description: `Agent ${n}'s own tools.`, executor, tools: [1, 2, 3].map((t) => tool(`own_${n}_tool_${t}`, `Agent ${n}'s tool ${t}.`)) },
    });
  const read = (agent: { id: string; token: string }, into: number[]) => async () => {
    const { ms } = await api.timed("GET", `/agents/${agent.id}/tools`, 200, { token: agent.token });
    into.push(ms);
  };
  const warm: number[] = [];
  for (let n = 0; n < AGENTS; n++) {
    await read(layered[n]!, warm)();
    await read(flat[n]!, warm)();
  }
  const samples = { layered: [] as number[], flat: [] as number[] };
  const steps = Array.from({ length: AGENTS }, (_, n) => [read(layered[n]!, samples.layered), read(flat[n]!, samples.flat)]).flat();
  await inShuffledRounds(steps, ROUNDS, (step) => step());
  const layeredP50 = percentile(samples.layered, 50);
  const flatP50 = percentile(samples.flat, 50);
  out("visible_tools_layered_p50_ms", layeredP50.toFixed(2));
  out("visible_tools_flat_org_p50_ms", flatP50.toFixed(2));
  out("visible_tools_layered_vs_flat", (layeredP50 / flatP50).toFixed(2));
  note(
    `layered org: ${AGENTS} agents in ${DEPARTMENTS} departments (a group of 5 tools each, one shadowing http_request), every ${PERSONAL_EVERY}th with 3 tools of its own; ` +
      `flat org: ${AGENTS} agents of the same kind of role; each agent read ${ROUNDS} times, shuffled, after one warm read`,
  );
}
