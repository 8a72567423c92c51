import { afterEach, expect, test, vi } from "vitest";
import { memoryReplayStore } from "./replay.js";

const NOW = Date.UTC(2026, 10, 25, 12);
const inSeconds = (seconds: number) => NOW / 1000 + seconds;

afterEach(() => void vi.useRealTimers());

test("memoryReplayStore - an id is taken once until it expires", async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: NOW });
  const store = memoryReplayStore();
  expect(await store.claim("a", inSeconds(10))).toBe(true);
  expect(await store.claim("a", inSeconds(10))).toBe(false);
  expect(await store.claim("b", inSeconds(10))).toBe(true);
  vi.setSystemTime(NOW + 9_999);
  expect(await store.claim("a", inSeconds(10))).toBe(false);
});

test("memoryReplayStore - expired ids are dropped before a live one is forgotten; past its bound the oldest live id is forgotten", async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: NOW });
  const store = memoryReplayStore({ maxEntries: 2 });
  await store.claim("long", inSeconds(100));
  await store.claim("short", inSeconds(1));
  vi.setSystemTime(NOW + 2_000);
  expect(await store.claim("third", inSeconds(100))).toBe(true);
  expect(await store.claim("long", inSeconds(100)), "kept: the expired id made room").toBe(false);
  expect(await store.claim("third", inSeconds(100))).toBe(false);
  expect(await store.claim("fourth", inSeconds(100))).toBe(true);
  expect(await store.claim("long", inSeconds(100)), "the oldest, forgotten to keep the bound").toBe(true);
});
