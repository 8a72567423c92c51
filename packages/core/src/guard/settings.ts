import type { CallTimings } from "../call/lifecycle";

export type GuardSettings = CallTimings & {
  defaultTimeoutMs: number;
  doomLoopThreshold: number;
  /** How long an agent's token is honoured after it is issued. */
  agentTokenDays: number;
};

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  callRetentionDays: 30,
  defaultTimeoutMs: 30_000,
  doomLoopThreshold: 3,
  agentTokenDays: 90,
  confirmationTimeoutMs: 60 * 60_000,
  clientResultTimeoutMs: 10 * 60_000,
  questionTimeoutMs: 60 * 60_000,
};
