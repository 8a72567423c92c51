export type GuardSettings = {
  callRetentionDays: number;
  defaultTimeoutMs: number;
  doomLoopThreshold: number;
  confirmationTimeoutMs: number;
  clientResultTimeoutMs: number;
};

export const DEFAULT_GUARD_SETTINGS: GuardSettings = {
  callRetentionDays: 30,
  defaultTimeoutMs: 30_000,
  doomLoopThreshold: 3,
  confirmationTimeoutMs: 60 * 60_000,
  clientResultTimeoutMs: 10 * 60_000,
};

/** Settling a call after its deadline is left to cleanup; this much grace covers a slow write. */
export const DEADLINE_GRACE_MS = 5_000;

export const retentionExpiry = (settings: GuardSettings, from: Date) =>
  Math.floor(from.getTime() / 1000) + Math.round(settings.callRetentionDays * 86_400);
