import type { CallRecord } from "../call/schema";
import type { Db } from "./client";
import { admittedAgents } from "./cleanup";
import { listCalls } from "./calls";

/**
 * Up to `limit` of the newest calls of the agents that had a call admitted since `sinceMs` (the keys-only gsi3), each
 * agent's read newest first from its own partition; newest first overall. An agent whose every call was refused before
 * admission is not indexed there, so its calls are not among them. An operator's occasional read, never a Scan.
 */
export async function recentCalls(db: Db, sinceMs: number, limit: number): Promise<CallRecord[]> {
  const agents = new Set<string>();
  for await (const page of admittedAgents(db, sinceMs)) for (const agentId of page) agents.add(agentId);
  const calls: CallRecord[] = [];
  for (const agentId of agents) {
    let cursor: string | undefined;
    let read = 0;
    do {
      const page = await listCalls(db, agentId, {}, 100, cursor);
      if (page === "invalid_cursor") break;
      calls.push(...page.calls);
      read += page.calls.length;
      cursor = page.nextCursor;
    } while (cursor && read < limit);
  }
  return calls.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0)).slice(0, limit);
}
