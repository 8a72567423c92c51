import type { Principal } from "./principal";
import type { StoredPolicy } from "./schema";
import { reaches } from "../scope/schema";

/** Who is calling, as policy scopes name them. */
export type Caller = Pick<Principal, "agentId" | "roleId" | "department">;

export type Applicable = { enforce: StoredPolicy[]; logOnly: StoredPolicy[] };

const NONE: Applicable = { enforce: [], logOnly: [] };

const MAX_ANSWERS = 10_000;

/** Its conditions read the call's context: the arguments, or the facts derived from them. */
const readsArguments = (policy: StoredPolicy) => policy.reads.context === "all" || policy.reads.context.length > 0;

const inScope = (policy: StoredPolicy, caller: Caller) => reaches(policy.scope, caller);

/**
 * The policies of one catalog snapshot, indexed by the tools and groups their action names, so a call is put only to
 * the policies that can apply to it (each policy given to Cedar costs time on every question).
 */
export class PolicyIndex {
  private readonly byTool = new Map<string, StoredPolicy[]>();
  private readonly byGroup = new Map<string, StoredPolicy[]>();
  private readonly everywhere: StoredPolicy[] = [];
  /** Some enforced deny policy does not read the call's arguments: it decides whether a tool is listed at all. */
  readonly deniesWithoutArguments: boolean;

  constructor(policies: Iterable<StoredPolicy>) {
    let deniesWithoutArguments = false;
    for (const policy of policies) {
      if (policy.mode === "enforce" && policy.effect === "deny" && !readsArguments(policy)) deniesWithoutArguments = true;
      if (policy.targets === "all") {
        this.everywhere.push(policy);
        continue;
      }
      for (const tool of policy.targets.tools) push(this.byTool, tool, policy);
      for (const group of policy.targets.groups) push(this.byGroup, group, policy);
    }
    this.deniesWithoutArguments = deniesWithoutArguments;
  }

  /** The enforced deny policies that apply to this caller's calls of this tool whatever the arguments. */
  denialsWithoutArguments(tool: string, group: string, caller: Caller): StoredPolicy[] {
    if (!this.deniesWithoutArguments) return [];
    return this.applicable(tool, group, caller).enforce.filter((policy) => policy.effect === "deny" && !readsArguments(policy));
  }

  private readonly answers = new Map<string, Applicable>();

  /** The policies that apply to this caller's call of this tool (of this group), enforced and log-only apart; the same arrays each time. */
  applicable(tool: string, group: string, caller: Caller): Applicable {
    const key = `${tool}\u0000${group}\u0000${caller.agentId}\u0000${caller.roleId}\u0000${caller.department ?? ""}`;
    let known = this.answers.get(key);
    if (!known) {
      if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
      this.answers.set(key, (known = this.collect(tool, group, caller)));
    }
    return known;
  }

  private collect(tool: string, group: string, caller: Caller): Applicable {
    const candidates = [...(this.byTool.get(tool) ?? []), ...(this.byGroup.get(group) ?? []), ...this.everywhere];
    if (!candidates.length) return NONE;
    const seen = new Set<string>();
    const applicable: Applicable = { enforce: [], logOnly: [] };
    for (const policy of candidates) {
      if (seen.has(policy.id) || !inScope(policy, caller)) continue;
      seen.add(policy.id);
      (policy.mode === "enforce" ? applicable.enforce : applicable.logOnly).push(policy);
    }
    return applicable;
  }
}

function push(map: Map<string, StoredPolicy[]>, key: string, policy: StoredPolicy) {
  const list = map.get(key);
  if (list) list.push(policy);
  else map.set(key, [policy]);
}

const indexes = new WeakMap<ReadonlyMap<string, StoredPolicy>, PolicyIndex>();

/** The index of a snapshot's policies, built once per snapshot. */
export function policyIndex(policies: ReadonlyMap<string, StoredPolicy>): PolicyIndex {
  let index = indexes.get(policies);
  if (!index) indexes.set(policies, (index = new PolicyIndex(policies.values())));
  return index;
}
