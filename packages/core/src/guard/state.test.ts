import { expect, test } from "vitest";
import fc from "fast-check";
import { admit, emptyGuardState, GuardState } from "./state";
import type { Admission } from "./state";

// 2024-01-01T00:00:00Z: the start of a minute and of an hour.
const T0 = 1_704_067_200;

const call = (nowSeconds: number, fingerprint = `f${nowSeconds}-${Math.random()}`, tool = "t") => ({ tool, fingerprint, nowSeconds });

const rateOf = (state: GuardState, tool: string) => state.rates.find((rate) => rate.tool === tool);

function admitted(admission: Admission) {
  if (!admission.admitted) throw new Error(`expected the call to be admitted, got ${JSON.stringify(admission)}`);
  return admission.next;
}

/** Admits distinct calls at the given times, threading the state; returns the last admission and the state before it. */
function run(times: number[], policy: Parameters<typeof admit>[2], threshold = 3) {
  let state = emptyGuardState();
  let last: Admission | undefined;
  for (const [index, time] of times.entries()) {
    last = admit(state, call(time, `distinct-${index}`), policy, threshold);
    if (last.admitted) state = last.next;
  }
  return { state, last: last! };
}

test("admit - admits a first call and counts it, with seq moving from 0 to 1", () => {
  const next = admitted(admit(emptyGuardState(), call(T0, "a"), { rateLimit: { perMinute: 5 } }, 3));
  expect(next).toEqual({ seq: 1, last: { fingerprint: "a", repeats: 1 }, rates: [{ tool: "t", minute: [T0, 1] }] });
});

test("admit - seq increases by one with every admitted call", () => {
  let state = emptyGuardState();
  for (let i = 1; i <= 5; i++) {
    state = admitted(admit(state, call(T0 + i, `c${i}`), {}, 3));
    expect(state.seq).toBe(i);
  }
});

test("admit - perMinute admits exactly the limit within one minute, then refuses with the seconds left", () => {
  const times = [T0 + 1, T0 + 10, T0 + 20];
  expect(run(times, { rateLimit: { perMinute: 3 } }).last.admitted).toBe(true);
  const { last } = run([...times, T0 + 45], { rateLimit: { perMinute: 3 } });
  expect(last).toEqual({ admitted: false, code: "rate_limited", limit: "perMinute", retryAfterSeconds: 15 });
});

test("admit - retryAfterSeconds counts down to the end of the minute window", () => {
  for (const offset of [0, 1, 30, 59]) {
    const { last } = run([T0, T0 + offset], { rateLimit: { perMinute: 1 } });
    expect(last, String(offset)).toMatchObject({ admitted: false, retryAfterSeconds: 60 - offset });
  }
});

test("admit - a new minute window starts a new count", () => {
  const { state, last } = run([T0, T0 + 30, T0 + 59, T0 + 60], { rateLimit: { perMinute: 2 } });
  expect(last.admitted).toBe(true);
  expect(rateOf(state, "t")?.minute).toEqual([T0 + 60, 1]);
});

test("admit - perHour counts across minutes and refuses until the hour rolls over", () => {
  const policy = { rateLimit: { perHour: 3 } };
  const { last } = run([T0, T0 + 600, T0 + 1200, T0 + 1800], policy);
  expect(last).toEqual({ admitted: false, code: "rate_limited", limit: "perHour", retryAfterSeconds: 3600 - 1800 });
  const rolled = run([T0, T0 + 600, T0 + 1200, T0 + 3600], policy);
  expect(rolled.last.admitted).toBe(true);
  expect(rateOf(rolled.state, "t")?.hour).toEqual([T0 + 3600, 1]);
});

test("admit - perMinute is checked before perHour, and both count every admitted call", () => {
  const policy = { rateLimit: { perMinute: 2, perHour: 3 } };
  expect(run([T0, T0 + 1, T0 + 2], policy).last).toMatchObject({ admitted: false, limit: "perMinute" });
  const hourly = run([T0, T0 + 1, T0 + 61, T0 + 62], policy);
  expect(hourly.last).toMatchObject({ admitted: false, limit: "perHour", retryAfterSeconds: 3600 - 62 });
  expect(rateOf(hourly.state, "t")).toEqual({ tool: "t", minute: [T0 + 60, 1], hour: [T0, 3] });
});

test("admit - rate limits count per tool", () => {
  let state = emptyGuardState();
  const policy = { rateLimit: { perMinute: 1 } };
  state = admitted(admit(state, call(T0, "a1", "a"), policy, 3));
  state = admitted(admit(state, call(T0, "b1", "b"), policy, 3));
  expect(admit(state, call(T0, "a2", "a"), policy, 3)).toMatchObject({ admitted: false, code: "rate_limited" });
  expect(state.rates).toEqual([{ tool: "a", minute: [T0, 1] }, { tool: "b", minute: [T0, 1] }]);
});

test("admit - a tool without a rate limit keeps no counters", () => {
  const next = admitted(admit({ seq: 4, last: null, rates: [{ tool: "t", minute: [T0, 9] }] }, call(T0), {}, 3));
  expect(next.rates).toEqual([]);
});

test("admit - the doom loop refuses the third identical call in a row by default", () => {
  let state = emptyGuardState();
  state = admitted(admit(state, call(T0, "same"), {}, 3));
  state = admitted(admit(state, call(T0 + 1, "same"), {}, 3));
  expect(state.last).toEqual({ fingerprint: "same", repeats: 2 });
  expect(admit(state, call(T0 + 2, "same"), {}, 3)).toEqual({ admitted: false, code: "doom_loop_detected", runs: 2, repeatLimit: 2 });
});

test("admit - the doom loop threshold N is configurable: the Nth identical call is refused", () => {
  for (const threshold of [2, 4, 5, 10]) {
    let state = emptyGuardState();
    for (let i = 1; i < threshold; i++) state = admitted(admit(state, call(T0 + i, "same"), {}, threshold));
    expect(admit(state, call(T0 + threshold, "same"), {}, threshold), String(threshold)).toEqual({
      admitted: false,
      code: "doom_loop_detected",
      runs: threshold - 1,
      repeatLimit: threshold - 1,
    });
  }
});

test("admit - a tool's repeatLimit overrides the threshold: that many identical calls run, the next is refused", () => {
  for (const repeatLimit of [1, 2, 5]) {
    let state = emptyGuardState();
    for (let i = 0; i < repeatLimit; i++) state = admitted(admit(state, call(T0 + i, "same"), { repeatLimit }, 3));
    expect(admit(state, call(T0 + 9, "same"), { repeatLimit }, 3), String(repeatLimit)).toEqual({
      admitted: false,
      code: "doom_loop_detected",
      runs: repeatLimit,
      repeatLimit,
    });
  }
});

test("admit - repeatLimit 0 switches the doom-loop check off for that tool", () => {
  let state = emptyGuardState();
  for (let i = 0; i < 50; i++) state = admitted(admit(state, call(T0 + i, "poll"), { repeatLimit: 0 }, 3));
  expect(state.last).toEqual({ fingerprint: "poll", repeats: 50 });
});

test("admit - a tool named __proto__, constructor or toString keeps its own counters and the state stays a plain list", () => {
  let state = emptyGuardState();
  const policy = { rateLimit: { perMinute: 2 } };
  for (const tool of ["__proto__", "constructor", "toString", "__proto__", "constructor", "toString"])
    state = admitted(admit(state, call(T0, `${tool}-${Math.random()}`, tool), policy, 3));
  for (const tool of ["__proto__", "constructor", "toString"]) {
    expect(rateOf(state, tool)?.minute, tool).toEqual([T0, 2]);
    expect(admit(state, call(T0, "x", tool), policy, 3), tool).toMatchObject({ admitted: false, code: "rate_limited" });
  }
  expect(GuardState.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  expect(Object.getPrototypeOf(state.rates)).toBe(Array.prototype);
});

test("GuardState - reads counters stored by earlier versions as a map keyed by tool name", () => {
  const stored = { seq: 2, last: null, rates: { search: { minute: [T0, 2] } } };
  expect(GuardState.parse(stored).rates).toEqual([{ tool: "search", minute: [T0, 2] }]);
});

test("admit - different arguments in between reset the run of identical calls", () => {
  let state = emptyGuardState();
  state = admitted(admit(state, call(T0, "same"), {}, 3));
  state = admitted(admit(state, call(T0, "same"), {}, 3));
  state = admitted(admit(state, call(T0, "other"), {}, 3));
  expect(state.last).toEqual({ fingerprint: "other", repeats: 1 });
  state = admitted(admit(state, call(T0, "same"), {}, 3));
  state = admitted(admit(state, call(T0, "same"), {}, 3));
  expect(state.last).toEqual({ fingerprint: "same", repeats: 2 });
});

test("admit - a refused call leaves the state unchanged, so the refusal repeats", () => {
  const limited = run([T0, T0 + 1], { rateLimit: { perMinute: 1 } });
  const before = structuredClone(limited.state);
  expect(admit(limited.state, call(T0 + 2), { rateLimit: { perMinute: 1 } }, 3).admitted).toBe(false);
  expect(limited.state).toEqual(before);

  let looping = emptyGuardState();
  looping = admitted(admit(looping, call(T0, "same"), {}, 3));
  looping = admitted(admit(looping, call(T0, "same"), {}, 3));
  const snapshot = structuredClone(looping);
  for (let i = 0; i < 3; i++) expect(admit(looping, call(T0, "same"), {}, 3)).toMatchObject({ admitted: false, runs: 2 });
  expect(looping).toEqual(snapshot);
});

test("admit - the rate limit is checked before the doom loop", () => {
  let state = emptyGuardState();
  const policy = { rateLimit: { perMinute: 2 } };
  state = admitted(admit(state, call(T0, "same"), policy, 3));
  state = admitted(admit(state, call(T0, "same"), policy, 3));
  expect(admit(state, call(T0, "same"), policy, 3)).toMatchObject({ code: "rate_limited" });
});

test("admit - never admits more calls in a window than the limit, and every next state is a valid GuardState (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.record({ dt: fc.integer({ min: 0, max: 40 }), fingerprint: fc.constantFrom("a", "b", "c") }), { maxLength: 60 }),
      (perMinute, steps) => {
        let state = emptyGuardState();
        let now = T0;
        const perWindow = new Map<number, number>();
        for (const step of steps) {
          now += step.dt;
          const admission = admit(state, { tool: "t", fingerprint: step.fingerprint, nowSeconds: now }, { rateLimit: { perMinute } }, 3);
          if (!admission.admitted) continue;
          expect(GuardState.safeParse(admission.next).success).toBe(true);
          expect(admission.next.seq).toBe(state.seq + 1);
          state = admission.next;
          const window = now - (now % 60);
          perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
        }
        for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(perMinute);
      },
    ),
  );
});
