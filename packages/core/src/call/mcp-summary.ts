import type { CallToolResult } from "@modelcontextprotocol/client";
import type { OfferAnswer } from "../executor/schema";
import type { McpResultSummary } from "./schema";

type Block = CallToolResult["content"][number];
type BlockSummary = McpResultSummary["blocks"][number];

/** Blocks are described one by one up to these bounds; the rest are only counted, so a record stays small whatever an answer holds. */
export const MAX_SUMMARISED_BLOCKS = 16;
export const MAX_SUMMARY_BYTES = 4 * 1024;
const MAX_NAME = 256;

/** The size of base64 data once decoded, without decoding it. */
export const decodedBytes = (base64: string) => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
};

const textBytes = (text: string) => Buffer.byteLength(text, "utf8");

function described(block: Block): BlockSummary {
  switch (block.type) {
    case "text":
      return { type: block.type, bytes: textBytes(block.text) };
    case "image":
    case "audio":
      return { type: block.type, mimeType: block.mimeType, bytes: decodedBytes(block.data) };
    case "resource_link":
      return { type: block.type, uri: block.uri, ...(block.mimeType ? { mimeType: block.mimeType } : {}), ...(block.size === undefined ? {} : { bytes: block.size }) };
    case "resource": {
      const { resource } = block;
      const bytes = "text" in resource ? textBytes(resource.text) : decodedBytes(resource.blob);
      return { type: block.type, uri: resource.uri, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), bytes };
    }
    default:
      return { type: (block as { type: string }).type };
  }
}

/**
 * What a call record keeps of an MCP server's whole answer: each block's type, media type, size and URI (cut short and
 * scrubbed of the call's secrets), never its text or data, which the record's content renders as far as it keeps any.
 */
export function summariseMcpResult(result: CallToolResult, scrub: (text: string) => string): McpResultSummary {
  const name = (text: string) => scrub(text).slice(0, MAX_NAME);
  const blocks: BlockSummary[] = [];
  let bytes = 0;
  for (const block of result.content.slice(0, MAX_SUMMARISED_BLOCKS)) {
    const { uri, mimeType, ...rest } = described(block);
    const summary = { ...rest, ...(mimeType === undefined ? {} : { mimeType: name(mimeType) }), ...(uri === undefined ? {} : { uri: name(uri) }) };
    bytes += textBytes(JSON.stringify(summary));
    if (bytes > MAX_SUMMARY_BYTES) break;
    blocks.push(summary);
  }
  const more = result.content.length - blocks.length;
  return { blocks, ...(more > 0 ? { moreBlocks: more } : {}), ...(result.structuredContent === undefined ? {} : { structuredContent: true as const }) };
}

/** A resource's contents (each an embedded resource) or a prompt's messages (their content) as the blocks a summary describes. */
export const asBlocks = (answer: OfferAnswer): CallToolResult => ({
  content:
    answer.kind === "resource"
      ? answer.result.contents.map((resource) => ({ type: "resource" as const, resource }))
      : (answer.result.messages.map((message) => message.content) as CallToolResult["content"]),
});
