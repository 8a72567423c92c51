import { expect, test } from "vitest";
import { boundedLines } from "./lines";

async function linesOf(chunks: string[], maxChars = 5) {
  const out = [];
  for await (const line of boundedLines((async function* () { yield* chunks; })(), maxChars)) out.push(line.cut ? `${line.text}…` : line.text);
  return out;
}

test("boundedLines - split at \\n across chunks, \\r\\n as one break, a last line without \\n, long lines cut and marked", async () => {
  expect(await linesOf([])).toEqual([]);
  expect(await linesOf(["a\nb\n"])).toEqual(["a", "b"]);
  expect(await linesOf(["a\r\nb"])).toEqual(["a", "b"]);
  expect(await linesOf(["a", "b\n\nc", "d"])).toEqual(["ab", "", "cd"]);
  expect(await linesOf(["abcdefgh", "ijk\nxy\n"])).toEqual(["abcde…", "xy"]);
  expect(await linesOf(["abc", "defgh"])).toEqual(["abcde…"]);
});
