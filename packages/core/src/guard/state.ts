import { z } from "zod";
import type { ToolPolicy } from "../tool/definition";

const Window = z.tuple([z.number(), z.number()]);

/** Per-agent admission state: the run of identical calls and fixed-window rate counters per tool. */
export const GuardState = z.object({
  seq: z.number().int().min(0),
  last: z.object({ fingerprint: z.string(), repeats: z.number().int() }).nullable(),
  rates: z.record(z.string(), z.object({ minute: Window.optional(), hour: Window.optional() })),
});
export type GuardState = z.infer<typeof GuardState>;

export const emptyGuardState = (): GuardState => ({ seq: 0, last: null, rates: {} });

export type Admission =
  | { admitted: true; next: GuardState }
  | { admitted: false; code: "rate_limited"; limit: "perMinute" | "perHour"; retryAfterSeconds: number }
  | { admitted: false; code: "doom_loop_detected"; repeats: number };

const MINUTE = 60;
const HOUR = 3600;

function windowCount(window: [number, number] | undefined, start: number) {
  return window && window[0] === start ? window[1] : 0;
}

/**
 * Decides whether one more call is admitted, in the guard's order: rate limits, then the doom loop.
 * A refused call leaves the state as it was.
 */
export function admit(
  state: GuardState,
  call: { tool: string; fingerprint: string; nowSeconds: number },
  policy: Pick<ToolPolicy, "rateLimit">,
  doomLoopThreshold: number,
): Admission {
  const minuteStart = call.nowSeconds - (call.nowSeconds % MINUTE);
  const hourStart = call.nowSeconds - (call.nowSeconds % HOUR);
  const counters = state.rates[call.tool] ?? {};
  const perMinute = policy.rateLimit?.perMinute;
  const perHour = policy.rateLimit?.perHour;
  const minuteCount = windowCount(counters.minute, minuteStart);
  const hourCount = windowCount(counters.hour, hourStart);
  if (perMinute !== undefined && minuteCount >= perMinute)
    return { admitted: false, code: "rate_limited", limit: "perMinute", retryAfterSeconds: minuteStart + MINUTE - call.nowSeconds };
  if (perHour !== undefined && hourCount >= perHour)
    return { admitted: false, code: "rate_limited", limit: "perHour", retryAfterSeconds: hourStart + HOUR - call.nowSeconds };

  const repeats = state.last?.fingerprint === call.fingerprint ? state.last.repeats + 1 : 1;
  if (repeats >= doomLoopThreshold) return { admitted: false, code: "doom_loop_detected", repeats };

  const rates = { ...state.rates };
  if (perMinute !== undefined || perHour !== undefined)
    rates[call.tool] = {
      ...(perMinute !== undefined ? { minute: [minuteStart, minuteCount + 1] as [number, number] } : {}),
      ...(perHour !== undefined ? { hour: [hourStart, hourCount + 1] as [number, number] } : {}),
    };
  else delete rates[call.tool];
  return { admitted: true, next: { seq: state.seq + 1, last: { fingerprint: call.fingerprint, repeats }, rates } };
}
