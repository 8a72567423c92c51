import { BoundedMap } from "../bounded";
import type { StoredGuard } from "../dynamo/guard";
import { KeyedQueue } from "../queue";

/**
 * The guard records a warm process remembers between calls, and a queue per agent so this process's admissions
 * of one agent build on each other instead of racing. A remembered record is only a starting point: the write
 * that admits a call is conditional on it.
 */
export class GuardStates {
  private readonly records = new BoundedMap<string, StoredGuard>();
  private readonly queue = new KeyedQueue();

  peek(agentId: string): StoredGuard | undefined {
    return this.records.get(agentId);
  }

  remember(agentId: string, record: StoredGuard) {
    this.records.set(agentId, record);
  }

  forget(agentId: string) {
    this.records.delete(agentId);
  }

  clear() {
    this.records.clear();
  }

  /** Runs admissions of one agent one at a time in this process, in arrival order. */
  exclusive<T>(agentId: string, work: () => Promise<T>): Promise<T> {
    return this.queue.run(agentId, work);
  }
}
