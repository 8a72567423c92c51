import type { CallToolResult } from "@modelcontextprotocol/client";
import { expect, test } from "vitest";
import { decodedBytes, MAX_SUMMARISED_BLOCKS, MAX_SUMMARY_BYTES, summariseMcpResult } from "./mcp-summary";
import { MAX_STORED_BYTES, REDACTED, scrubSecrets, storedResult } from "./redact";

const IMAGE = Buffer.alloc(3000, 7).toString("base64");
const AUDIO = Buffer.alloc(1001, 9).toString("base64");

const EVERY_BLOCK: CallToolResult = {
  content: [
    { type: "text", text: "Grüße" },
    { type: "image", data: IMAGE, mimeType: "image/png" },
    { type: "audio", data: AUDIO, mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///q3.pdf", name: "q3.pdf", mimeType: "application/pdf", size: 1234 },
    { type: "resource", resource: { uri: "test://notes", mimeType: "text/plain", text: "a note" } },
    { type: "resource", resource: { uri: "test://bytes", blob: Buffer.from([0, 1, 2, 3, 4]).toString("base64") } },
  ],
  structuredContent: { found: 3 },
  _meta: { "example.com/trace": "t-1" },
};

const same = (text: string) => text;

test("decodedBytes - the size of base64 data once decoded, padding included", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 1000, 1001]) expect(decodedBytes(Buffer.alloc(size).toString("base64")), String(size)).toBe(size);
});

test("summariseMcpResult - each block's type, media type, size and URI, never its text or data", () => {
  expect(summariseMcpResult(EVERY_BLOCK, same)).toEqual({
    blocks: [
      { type: "text", bytes: 7 },
      { type: "image", mimeType: "image/png", bytes: 3000 },
      { type: "audio", mimeType: "audio/wav", bytes: 1001 },
      { type: "resource_link", mimeType: "application/pdf", uri: "file:///q3.pdf", bytes: 1234 },
      { type: "resource", mimeType: "text/plain", uri: "test://notes", bytes: 6 },
      { type: "resource", uri: "test://bytes", bytes: 5 },
    ],
    structuredContent: true,
  });
});

test("summariseMcpResult - is bounded: the first blocks described within 4 KiB, the rest counted; URIs cut short", () => {
  const many: CallToolResult = { content: Array.from({ length: 40 }, (_, index) => ({ type: "resource_link" as const, uri: `test://${index}/${"x".repeat(10_000)}`, name: "n" })) };
  const summary = summariseMcpResult(many, same);
  expect(summary.blocks.length).toBeLessThanOrEqual(MAX_SUMMARISED_BLOCKS);
  expect(summary.blocks.length + summary.moreBlocks!).toBe(40);
  expect(Buffer.byteLength(JSON.stringify(summary.blocks))).toBeLessThanOrEqual(MAX_SUMMARY_BYTES);
  expect(summary.blocks[0]!.uri).toHaveLength(256);
  const few = summariseMcpResult({ content: Array.from({ length: 20 }, () => ({ type: "text" as const, text: "t" })) }, same);
  expect(few).toEqual({ blocks: Array.from({ length: MAX_SUMMARISED_BLOCKS }, () => ({ type: "text", bytes: 1 })), moreBlocks: 4 });
});

test("storedResult - of an MCP server's whole answer only the summary is stored: no image, audio or blob data, the call's secrets scrubbed", () => {
  const secret = "sk-live-0123456789";
  const answer: CallToolResult = { ...EVERY_BLOCK, content: [...EVERY_BLOCK.content, { type: "resource_link", uri: `https://files.example/${secret}`, name: "f" }] };
  const stored = storedResult({ content: '{"found":3}', type: "json", mcpResult: answer }, [secret]);
  const text = JSON.stringify(stored);
  expect(stored).not.toHaveProperty("mcpResult");
  expect(text).not.toContain(IMAGE.slice(0, 40));
  expect(text).not.toContain(AUDIO.slice(0, 40));
  expect(text).not.toContain(secret);
  expect(stored.mcp!.blocks.at(-1)).toEqual({ type: "resource_link", uri: `https://files.example/${REDACTED}` });
  expect(stored).toMatchObject({ content: '{"found":3}', type: "json", mcp: { structuredContent: true } });
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_STORED_BYTES);
});

test("storedResult - a large answer keeps its summary whole and cuts its text to fit 16 KiB", () => {
  const answer: CallToolResult = { content: [{ type: "text", text: "y".repeat(40_000) }, { type: "image", data: IMAGE, mimeType: "image/png" }] };
  const stored = storedResult({ content: "y".repeat(40_000), type: "text", mcpResult: answer });
  expect(stored).toMatchObject({ truncated: true, mcp: { blocks: [{ type: "text", bytes: 40_000 }, { type: "image", bytes: 3000 }] } });
  expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThanOrEqual(MAX_STORED_BYTES);
});

test("scrubSecrets - scrubs the secrets from every string and key and keeps secret-looking keys' values; no secrets, the same value", () => {
  const value = { token: "usage: 12", nested: [{ [`k-${"abcd1234"}`]: "x abcd1234 y" }] };
  expect(scrubSecrets(value, ["abcd1234"])).toEqual({ token: "usage: 12", nested: [{ [`k-${REDACTED}`]: `x ${REDACTED} y` }] });
  expect(value.nested[0]).toHaveProperty("k-abcd1234");
  expect(scrubSecrets(value, [])).toBe(value);
});
