import { expect, test } from "vitest";
import { eventsWithResultType, withResultType } from "./mcp-result-type";

test("withResultType - a result without resultType is complete; one with it, an error, a notification and a request are as they came", () => {
  expect(withResultType({ jsonrpc: "2.0", id: 1, result: { content: [] } })).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [], resultType: "complete" } });
  const asked = { jsonrpc: "2.0", id: 2, result: { resultType: "input_required", inputRequests: {} } };
  const failed = { jsonrpc: "2.0", id: 3, error: { code: -32600, message: "no" } };
  const notified = { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1, result: {} } };
  for (const message of [asked, failed, notified]) expect(withResultType(message)).toBe(message);
  expect(withResultType([{ jsonrpc: "2.0", id: 4, result: {} }, failed])).toEqual([{ jsonrpc: "2.0", id: 4, result: { resultType: "complete" } }, failed]);
});

/** What the transform has passed on after each of the given chunks of a stream. */
async function passedOn(chunks: string[]) {
  const events = eventsWithResultType();
  const writer = events.writable.getWriter();
  const reader = events.readable.getReader();
  let passed = "";
  void (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read()) passed += read.value;
  })();
  const after: string[] = [];
  for (const chunk of chunks) {
    await writer.write(chunk);
    await new Promise(setImmediate);
    after.push(passed);
    passed = "";
  }
  return after;
}

test("eventsWithResultType - passes each event on as it ends, however the stream is cut and whatever its line ends, a result given resultType and the rest as it came", async () => {
  const progress = 'id: 7\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n';
  const result = 'id: 8\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":1,"result":{"content":[]}}\r\n\r\n';
  const whole = progress + result;
  const cut = [whole.slice(0, 40), whole.slice(40, progress.length + 10), whole.slice(progress.length + 10, whole.length - 1), whole.slice(-1)];

  expect(await passedOn(cut)).toEqual(["", progress, 'id: 8\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}\n\n', ""]);
  expect(await passedOn([": keep-alive\n\n", 'data: {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}\n\n'])).toEqual([
    ": keep-alive\n\n",
    'data: {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}\n\n',
  ]);
});
