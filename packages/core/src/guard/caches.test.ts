import { expect, test } from "vitest";
import { GuardStates } from "./caches";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const caches = () => new GuardStates();

test("GuardStates.exclusive - runs the work of one agent one at a time, in arrival order", async () => {
  const cache = caches();
  const events: string[] = [];
  const work = (name: string, ms: number) => async () => {
    events.push(`start ${name}`);
    await sleep(ms);
    events.push(`end ${name}`);
    return name;
  };
  const results = await Promise.all([cache.exclusive("a", work("1", 30)), cache.exclusive("a", work("2", 5)), cache.exclusive("a", work("3", 1))]);
  expect(results).toEqual(["1", "2", "3"]);
  expect(events).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
});

test("GuardStates.exclusive - different agents do not wait for each other", async () => {
  const cache = caches();
  const events: string[] = [];
  await Promise.all([
    cache.exclusive("a", async () => {
      events.push("start a");
      await sleep(30);
      events.push("end a");
    }),
    cache.exclusive("b", async () => {
      events.push("start b");
      events.push("end b");
    }),
  ]);
  expect(events).toEqual(["start a", "start b", "end b", "end a"]);
});

test("GuardStates.exclusive - a failing piece of work rejects its caller only and does not block the next", async () => {
  const cache = caches();
  const failing = cache.exclusive("a", async () => {
    throw new Error("boom");
  });
  const next = cache.exclusive("a", async () => "ok");
  await expect(failing).rejects.toThrow("boom");
  await expect(next).resolves.toBe("ok");
});

test("GuardStates - remembers and forgets an agent's guard record without a read", () => {
  const states = caches();
  const record = { state: { seq: 3, last: null, rates: [] }, tokenVersion: 1, active: true, exists: true };
  states.remember("a", record);
  expect(states.peek("a")).toBe(record);
  states.forget("a");
  expect(states.peek("a")).toBeUndefined();
});
