import { BoundedMap } from "../bounded";
import { getAgent } from "../dynamo/agents";
import type { Db } from "../dynamo/client";
import type { Agent } from "./schema";

/** Agents a warm process has read. Nothing here is trusted on its own: admitting a call proves the token current in its write. */
export class AgentCache {
  private readonly agents = new BoundedMap<string, Agent>();

  constructor(private readonly db: Db) {}

  /** The agent a token names, from cache when the cached copy was issued the same token version. */
  async get(id: string, tokenVersion: number): Promise<Agent | undefined> {
    const cached = this.agents.get(id);
    if (cached && cached.tokenVersion === tokenVersion) return cached;
    return this.refresh(id);
  }

  async refresh(id: string): Promise<Agent | undefined> {
    const agent = await getAgent(this.db, id);
    if (agent) this.agents.set(id, agent);
    else this.agents.delete(id);
    return agent;
  }

  clear() {
    this.agents.clear();
  }
}
