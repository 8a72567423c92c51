import type { CallTimings } from "../call/lifecycle";

export type GuardSettings = CallTimings & {
  defaultTimeoutMs: number;
  doomLoopThreshold: number;
};

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  callRetentionDays: 30,
  defaultTimeoutMs: 30_000,
  doomLoopThreshold: 3,
  confirmationTimeoutMs: 60 * 60_000,
  clientResultTimeoutMs: 10 * 60_000,
  questionTimeoutMs: 60 * 60_000,
};
