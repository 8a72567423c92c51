import type { GuardState, ToolRate } from "./schema";

export { emptyGuardState, GuardState } from "./schema";
import type { ToolPolicy } from "../policy/schema";

export type Admission =
  | { admitted: true; next: GuardState }
  | { admitted: false; code: "rate_limited"; limit: "perMinute" | "perHour"; retryAfterSeconds: number }
  | { admitted: false; code: "doom_loop_detected"; runs: number; repeatLimit: number };

const MINUTE = 60;
const HOUR = 3600;

function windowCount(window: [number, number] | undefined, start: number) {
  return window && window[0] === start ? window[1] : 0;
}

/** How many identical calls in a row may run: the tool's repeatLimit, else one fewer than the threshold that is refused; 0 means no limit. */
export const repeatLimitOf = (policy: Pick<ToolPolicy, "repeatLimit">, doomLoopThreshold: number) =>
  policy.repeatLimit ?? Math.max(0, doomLoopThreshold - 1);

/**
 * Decides whether one more call is admitted, in the guard's order: rate limits, then the doom loop.
 * A refused call leaves the state as it was.
 */
export function admit(
  state: GuardState,
  call: { tool: string; fingerprint: string; nowSeconds: number },
  policy: Pick<ToolPolicy, "rateLimit" | "repeatLimit">,
  doomLoopThreshold: number,
): Admission {
  const minuteStart = call.nowSeconds - (call.nowSeconds % MINUTE);
  const hourStart = call.nowSeconds - (call.nowSeconds % HOUR);
  const counters: Partial<ToolRate> = state.rates.find((rate) => rate.tool === call.tool) ?? {};
  const perMinute = policy.rateLimit?.perMinute;
  const perHour = policy.rateLimit?.perHour;
  const minuteCount = windowCount(counters.minute, minuteStart);
  const hourCount = windowCount(counters.hour, hourStart);
  if (perMinute !== undefined && minuteCount >= perMinute)
    return { admitted: false, code: "rate_limited", limit: "perMinute", retryAfterSeconds: minuteStart + MINUTE - call.nowSeconds };
  if (perHour !== undefined && hourCount >= perHour)
    return { admitted: false, code: "rate_limited", limit: "perHour", retryAfterSeconds: hourStart + HOUR - call.nowSeconds };

  const runs = state.last?.fingerprint === call.fingerprint ? state.last.repeats : 0;
  const repeatLimit = repeatLimitOf(policy, doomLoopThreshold);
  if (repeatLimit > 0 && runs >= repeatLimit) return { admitted: false, code: "doom_loop_detected", runs, repeatLimit };

  const others = state.rates.filter((rate) => rate.tool !== call.tool);
  const counted: ToolRate[] =
    perMinute !== undefined || perHour !== undefined
      ? [
          {
            tool: call.tool,
            ...(perMinute !== undefined ? { minute: [minuteStart, minuteCount + 1] as [number, number] } : {}),
            ...(perHour !== undefined ? { hour: [hourStart, hourCount + 1] as [number, number] } : {}),
          },
        ]
      : [];
  return { admitted: true, next: { seq: state.seq + 1, last: { fingerprint: call.fingerprint, repeats: runs + 1 }, rates: [...others, ...counted] } };
}
