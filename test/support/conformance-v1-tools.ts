import { setTimeout as sleep } from "node:timers/promises";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  answered,
  CALL_TOOLS,
  EMBEDDED_RESOURCE,
  ERROR_TEXT,
  failure,
  LOG_MESSAGES,
  MIXED_CONTENT,
  PAUSE_MS,
  PROGRESS_STEPS,
  QUESTIONS,
  RED_PIXEL_PNG,
  sampled,
  samplingRequest,
  silentWav,
  SIMPLE_TEXT,
  text,
} from "./conformance-content";
import type { ToolResult } from "./conformance-content";

/** The v1 SDK's tools of the 2025-era reference upstream (`conformance-upstream-v1.ts`). */

type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];
type Handler = (args: Record<string, unknown>, extra: Extra, server: Server) => Promise<ToolResult>;

/** Asks the client, related to the call (on its response stream), as the specification says a server should. */
async function askDuringCall(server: Server, extra: Extra, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  if (!server.getClientCapabilities()?.elicitation) return failure("The client does not support elicitation.");
  const { message, form, prefix } = QUESTIONS[name]!;
  const params = { message: message ?? String(args.message), requestedSchema: form };
  return answered(prefix, await extra.sendRequest({ method: "elicitation/create", params } as never, ElicitResultSchema));
}

const HANDLERS: Record<string, Handler> = {
  test_simple_text: async () => text(SIMPLE_TEXT),
  test_image_content: async () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
  test_audio_content: async () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  test_embedded_resource: async () => ({ content: [{ type: "resource", resource: EMBEDDED_RESOURCE }] }),
  test_multiple_content_types: async () => ({ content: MIXED_CONTENT }),
  test_tool_with_logging: async (_args, extra) => {
    for (const [index, message] of LOG_MESSAGES.entries()) {
      if (index > 0) await sleep(PAUSE_MS);
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: message } });
    }
    return text("Logged three messages.");
  },
  test_error_handling: async () => failure(ERROR_TEXT),
  test_tool_with_progress: async (_args, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (const progress of PROGRESS_STEPS) {
      if (progress > 0) await sleep(PAUSE_MS);
      if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
    }
    return text("Reported progress 0, 50 and 100 of 100.");
  },
  test_sampling: async (args, extra, server) => {
    if (!server.getClientCapabilities()?.sampling) return failure("The client does not support sampling.");
    const request = { method: "sampling/createMessage", params: samplingRequest(String(args.prompt)) } as never;
    return sampled((await extra.sendRequest(request, CreateMessageResultSchema)) as never);
  },
  test_elicitation: async (args, extra, server) => askDuringCall(server, extra, "test_elicitation", args),
  test_elicitation_sep1034_defaults: async (args, extra, server) => askDuringCall(server, extra, "test_elicitation_sep1034_defaults", args),
  test_elicitation_sep1330_enums: async (args, extra, server) => askDuringCall(server, extra, "test_elicitation_sep1330_enums", args),
  json_schema_2020_12_tool: async (args) => text(`Received ${JSON.stringify(args)}`),
  test_reconnection: async (_args, extra) => {
    await sleep(PAUSE_MS);
    extra.closeSSEStream?.();
    await sleep(4 * PAUSE_MS);
    return text("Answered after the client reconnected.");
  },
};

export function serveTools(server: Server): void {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: CALL_TOOLS as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const handler = HANDLERS[request.params.name];
    if (!handler) return failure(`Unknown tool: ${request.params.name}`) as CallToolResult;
    return (await handler(request.params.arguments ?? {}, extra, server)) as CallToolResult;
  });
}
