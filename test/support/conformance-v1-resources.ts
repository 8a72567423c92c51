import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { complete, DATA_TEMPLATE, PROMPTS, promptMessages, readResource, RESOURCES } from "./conformance-content";

/** The v1 SDK's resources, prompts and completions of the 2025-era reference upstream (`conformance-upstream-v1.ts`). */

export function serveResources(server: Server, subscriptions: Set<string>): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [DATA_TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const contents = readResource(request.params.uri);
    if (!contents) throw new McpError(ErrorCode.InvalidParams, "Resource not found", { uri: request.params.uri });
    return { contents: [contents as never] };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => (subscriptions.add(request.params.uri), {}));
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => (subscriptions.delete(request.params.uri), {}));
}

export function servePrompts(server: Server): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const messages = promptMessages(request.params.name, request.params.arguments ?? {});
    if (!messages) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    return { messages: messages as never };
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => ({ completion: complete(request.params.argument.value) }));
}
