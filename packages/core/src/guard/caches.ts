import type { Agent } from "../agent/schema";
import { getAgent } from "../dynamo/agents";
import type { Db } from "../dynamo/client";
import { readGuardState } from "../dynamo/guard";
import { getRole } from "../dynamo/roles";
import type { Role } from "../role/schema";
import type { GuardState } from "./state";

const MAX_ENTRIES = 10_000;

class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V) {
    this.delete(key);
    super.set(key, value);
    if (this.size > MAX_ENTRIES) this.delete(this.keys().next().value!);
    return this;
  }
}

async function refresh<V>(cache: BoundedMap<V>, id: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
  const value = await read();
  if (value) cache.set(id, value);
  else cache.delete(id);
  return value;
}

/**
 * What a warm process remembers between guarded calls. Nothing here is trusted on its own:
 * the admission write re-checks every cached version in the same round trip.
 */
export class GuardCaches {
  private readonly agents = new BoundedMap<Agent>();
  private readonly roles = new BoundedMap<Role>();
  private readonly states = new BoundedMap<GuardState>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Db) {}

  /** The agent a token names, from cache when the cached copy was issued the same token version. */
  async agent(id: string, tokenVersion: number): Promise<Agent | undefined> {
    const cached = this.agents.get(id);
    if (cached && cached.tokenVersion === tokenVersion) return cached;
    return this.refreshAgent(id);
  }

  refreshAgent(id: string): Promise<Agent | undefined> {
    return refresh(this.agents, id, () => getAgent(this.db, id));
  }

  async role(id: string): Promise<Role | undefined> {
    const cached = this.roles.get(id);
    if (cached) return cached;
    return this.refreshRole(id);
  }

  rememberRole(role: Role) {
    this.roles.set(role.id, role);
  }

  refreshRole(id: string): Promise<Role | undefined> {
    return refresh(this.roles, id, () => getRole(this.db, id));
  }

  async guardState(agentId: string): Promise<GuardState> {
    const cached = this.states.get(agentId);
    if (cached) return cached;
    const state = await readGuardState(this.db, agentId);
    this.states.set(agentId, state);
    return state;
  }

  rememberGuardState(agentId: string, state: GuardState) {
    this.states.set(agentId, state);
  }

  forgetGuardState(agentId: string) {
    this.states.delete(agentId);
  }

  clear() {
    this.agents.clear();
    this.roles.clear();
    this.states.clear();
  }

  /** Runs admissions of one agent one at a time in this process, so they build on each other's state. */
  async exclusive<T>(agentId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(agentId) ?? Promise.resolve();
    const current = previous.catch(() => {}).then(work);
    this.locks.set(agentId, current);
    try {
      return await current;
    } finally {
      if (this.locks.get(agentId) === current) this.locks.delete(agentId);
    }
  }
}
