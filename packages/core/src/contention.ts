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

type Contended = "contention" | { kind: "contention" };
const isContention = (outcome: unknown) => outcome === "contention" || (typeof outcome === "object" && outcome !== null && (outcome as { kind?: unknown }).kind === "contention");

/** Writes until the store gives an answer other than "lost a race": contention is retried with backoff until the deadline (then 503 busy). */
export function uncontended<T>(deadlineMs: number, write: () => Promise<T | Contended>): Promise<Exclude<T, Contended>> {
  return untilSettled(deadlineMs, async () => {
    const outcome = await write();
    return isContention(outcome) ? AGAIN : (outcome as Exclude<T, Contended>);
  });
}
