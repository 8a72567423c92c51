import * as z from "zod";
import type { Agent } from "../agent/schema";
import type { CallRecord } from "../call/schema";
import { ToolgateError } from "../error";
import { policyError } from "./errors";
import type { Db } from "../dynamo/client";
import { getAgent } from "../dynamo/agents";
import { recentCalls } from "../dynamo/recent-calls";
import { getRole } from "../dynamo/roles";
import type { CatalogSnapshot } from "../group/snapshot";
import type { Role } from "../role/schema";
import { PolicyIndex } from "./applicable";
import { decideCall } from "./evaluate";
import type { Verdict } from "./evaluate";
import { checkPolicy, storedPolicy } from "./manage";
import { PolicyId, PolicyInput } from "./schema";
import type { StoredPolicy } from "./schema";
import { principalOf } from "./principal";
import { workspaceRootOf } from "./workspace";

export const MAX_REPLAYED = 10_000;

export const SimulationInput = z.strictObject({
  put: z.array(z.intersection(PolicyInput, z.object({ id: PolicyId }))).max(100).optional(),
  delete: z.array(PolicyId).max(1000).optional(),
  limit: z.number().int().min(1).max(MAX_REPLAYED).default(1000),
});
export type SimulationInput = z.infer<typeof SimulationInput>;

export type Flip = { callId: string; agentId: string; tool: string; startedAt: string; from: Verdict; to: Verdict };

export type Simulation = {
  replayed: number;
  /** Calls read but not replayed: their arguments were cut short, their tool or agent is gone, or they were refused before any policy was asked. */
  notReplayed: number;
  revision: number;
  flips: Flip[];
  byPolicy: Array<{ policyId: string; flips: number }>;
};

/** The policies as they would be with the draft applied: puts checked against the catalog (a problem is a 400), deletes of existing ones. */
async function draftPolicies(db: Db, snapshot: CatalogSnapshot, input: SimulationInput, now: string): Promise<Map<string, StoredPolicy>> {
  const policies = new Map(snapshot.policies);
  for (const id of input.delete ?? []) {
    if (!policies.delete(id)) throw policyError("invalid_simulation", `The draft deletes "${id}", which is not a policy.`, { policyId: id });
  }
  for (const { id, ...draft } of input.put ?? []) {
    const checked = await checkPolicy({ db, manager: snapshot.manager }, id, draft);
    if (!checked.read || checked.problems.length)
      throw policyError("invalid_policy", `The draft policy "${id}" is not valid: ${checked.problems.map((problem) => problem.message).join("; ")}`, {
        policyId: id,
        problems: checked.problems,
      });
    policies.set(id, storedPolicy({ id, input: draft, cedar: checked.cedar, read: checked.read, previous: snapshot.policies.get(id), ifMatch: undefined, now }));
  }
  return policies;
}

const replayable = (record: CallRecord) =>
  record.arguments !== null &&
  typeof record.arguments === "object" &&
  !Array.isArray(record.arguments) &&
  record.argumentsTruncated !== true &&
  (record.status !== "refused" || record.error?.code === "policy_denied");

/**
 * Replays the newest recorded calls against the policies now and against the draft, and answers the calls whose effect
 * would change. Stored arguments are redacted (secret values read "[REDACTED]") and cut to their stored size; a call
 * whose arguments were cut short is not replayed. A call is replayed as the tool that ran it, of the scope it names
 * (everyone's, else the widest, when that scope's is gone or the call names none).
 */
export async function simulate(db: Db, snapshot: CatalogSnapshot, input: SimulationInput, now: Date, retentionDays: number): Promise<Simulation> {
  const draft = new PolicyIndex((await draftPolicies(db, snapshot, input, now.toISOString())).values());
  const current = new PolicyIndex(snapshot.policies.values());
  const calls = await recentCalls(db, now.getTime() - retentionDays * 86_400_000, input.limit);
  const agents = new Map<string, Promise<Agent | undefined>>();
  const roles = new Map<string, Promise<Role | undefined>>();
  const flips: Flip[] = [];
  let replayed = 0;
  for (const record of calls) {
    const found = (record.scope ? snapshot.manager.toolIn(record.scope, record.tool) : undefined) ?? snapshot.manager.findTool(record.tool);
    if (!found || !replayable(record)) continue;
    if (!agents.has(record.agentId)) agents.set(record.agentId, getAgent(db, record.agentId));
    const agent = await agents.get(record.agentId)!;
    if (!agent) continue;
    if (!roles.has(agent.roleId)) roles.set(agent.roleId, getRole(db, agent.roleId));
    const role = await roles.get(agent.roleId)!;
    if (!role) continue;
    const principal = principalOf(agent, role);
    const call = {
      principal,
      definition: found.definition,
      group: found.group.id,
      args: record.arguments as Record<string, unknown>,
      root: workspaceRootOf(role, agent),
      revision: snapshot.version,
    };
    const decided = await Promise.all(
      [current, draft].map((index) =>
        decideCall({ ...call, applicable: { enforce: index.applicable(record.tool, found.group.id, principal).enforce, logOnly: [] } }).catch((error: unknown) => {
          if (error instanceof ToolgateError && error.code === "unreadable_command") return undefined;
          throw error;
        }),
      ),
    );
    const [from, to] = decided.map((outcome) => outcome?.decision);
    if (!from || !to) continue;
    replayed++;
    if (from.effect !== to.effect)
      flips.push({ callId: record.callId, agentId: record.agentId, tool: record.tool, startedAt: record.startedAt, from: verdict(from), to: verdict(to) });
  }
  return { replayed, notReplayed: calls.length - replayed, revision: snapshot.version, flips, byPolicy: countByPolicy(flips) };
}

const verdict = ({ effect, policies }: Verdict): Verdict => ({ effect, policies });

/** Each flip counts for the policies that decide it: the draft's when it matched, else the ones it no longer matches. */
function countByPolicy(flips: readonly Flip[]) {
  const counts = new Map<string, number>();
  for (const flip of flips) for (const id of flip.to.effect !== "none" ? flip.to.policies : flip.from.policies) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([policyId, count]) => ({ policyId, flips: count }));
}
