import type { Db } from "./dynamo/client";
import { probeStore } from "./dynamo/health";
import { cedarAnswers } from "./policy/cedar/wasm";

const PROBE_TIMEOUT_MS = 2_000;
const REMEMBERED_MS = 1_500;

export type StoreStatus = "available" | "unavailable";

/** Whether the store answers, probed at most once every REMEMBERED_MS however often a load balancer asks. */
export class StoreHealth {
  private last: { status: StoreStatus; at: number } | undefined;
  private probing: Promise<StoreStatus> | undefined;

  constructor(private readonly db: Db) {}

  async status(): Promise<StoreStatus> {
    if (this.last && Date.now() - this.last.at < REMEMBERED_MS) return this.last.status;
    this.probing ??= probeStore(this.db, PROBE_TIMEOUT_MS)
      .then((up): StoreStatus => (up ? "available" : "unavailable"))
      .then((status) => {
        this.last = { status, at: Date.now() };
        return status;
      })
      .finally(() => (this.probing = undefined));
    return this.probing;
  }
}

export type EngineStatus = "available" | "unavailable";

/** Whether the policy engine loads and answers (loaded now if no policy has needed it yet): the deep health check's. */
export const policyEngineStatus = (): EngineStatus => (cedarAnswers() ? "available" : "unavailable");
