/**
 * Where a module records the call tokens it accepted, so that each is taken once: toolgate signs every request anew, so
 * a token that comes again is a replay. A token's id is kept until the token expires, after which its `exp` refuses it.
 */
export type ReplayStore = {
  /** Records the token id `jti` until `expiresAt` (its `exp`, seconds since 1970): true the first time, false when it was recorded before. */
  claim(jti: string, expiresAt: number): Promise<boolean>;
};

/** How many ids a memory store keeps at most: a token lives as long as its call, so this is the calls of one timeout. */
export const MEMORY_REPLAY_ENTRIES = 100_000;

/**
 * The ids this process accepted, in memory (the default store): expired ids are dropped as new ones come, and past
 * `maxEntries` live ones the oldest is forgotten. It stops a replay to this process only; a module served by many
 * processes (Lambda's containers) shares one store instead (dynamoReplayStore).
 */
export function memoryReplayStore({ maxEntries = MEMORY_REPLAY_ENTRIES }: { maxEntries?: number } = {}): ReplayStore {
  const accepted = new Map<string, number>();
  /** Ids are kept in the order they came, which is nearly the order they expire in: the oldest go first. */
  const dropOldestExpired = (now: number) => {
    for (const [jti, expiresAt] of accepted) {
      if (expiresAt > now) return;
      accepted.delete(jti);
    }
  };
  const dropEveryExpired = (now: number) => {
    for (const [jti, expiresAt] of accepted) if (expiresAt <= now) accepted.delete(jti);
  };
  return {
    async claim(jti, expiresAt) {
      const now = Date.now() / 1000;
      dropOldestExpired(now);
      const known = accepted.get(jti);
      if (known !== undefined && known > now) return false;
      if (accepted.size >= maxEntries) dropEveryExpired(now);
      if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value!);
      accepted.set(jti, expiresAt);
      return true;
    },
  };
}

/** The store of the process's modules that name none: token ids are unique, so one store serves them all. */
export const processReplayStore = memoryReplayStore();
