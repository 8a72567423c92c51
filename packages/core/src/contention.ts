import { setTimeout as sleep } from "node:timers/promises";
import { busy } from "./error";

export const AGAIN = Symbol("again");
export type Attempt<T> = (attempt: number) => Promise<T | typeof AGAIN>;

const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 500;

/** Full jitter: a random delay up to an exponentially growing cap, so racing writers spread out. */
export const backoffMs = (attempt: number) => Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 16));

/**
 * Runs an attempt until it settles (anything but AGAIN), backing off with jitter between attempts.
 * When the deadline would pass before the next attempt, the caller gets 503 busy instead of a lost write.
 */
export async function untilSettled<T>(deadlineMs: number, attempt: Attempt<T>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let n = 1; ; n++) {
    const result = await attempt(n);
    if (result !== AGAIN) return result;
    const delay = backoffMs(n);
    if (Date.now() + delay > deadline) throw busy();
    await sleep(delay);
  }
}
