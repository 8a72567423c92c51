import { inputRequired, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { ProtocolEra, ReadResourceResult, Server, ServerContext } from "@modelcontextprotocol/server";
import { complete, DATA_TEMPLATE, PROMPTS, promptMessages, readResource, RESOURCES } from "./conformance-content";

/** The v2 SDK's resources, prompts and completions of the conformance upstream (`conformance-upstream.ts`). */

/** A prompt of the 2026-07-28 scenarios that asks the client for context before it answers (`input_required`). */
const CONTEXT_PROMPT = { name: "test_input_required_result_prompt", description: "Asks what context to use, then answers with it" };

/** Serves resources (subscriptions on the 2025 era only, where they exist) on the server. */
export function serveResources(server: Server, era: ProtocolEra, subscriptions: Set<string>): void {
  server.setRequestHandler("resources/list", async () => ({ resources: RESOURCES }));
  server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: [DATA_TEMPLATE] }));
  server.setRequestHandler("resources/read", async (request) => {
    const contents = readResource(request.params.uri);
    if (!contents) throw new ResourceNotFoundError(request.params.uri);
    return { contents: [contents] } as ReadResourceResult;
  });
  if (era !== "legacy") return;
  server.setRequestHandler("resources/subscribe", async (request) => (subscriptions.add(request.params.uri), {}));
  server.setRequestHandler("resources/unsubscribe", async (request) => (subscriptions.delete(request.params.uri), {}));
}

const contextAnswer = (ctx: ServerContext) => (ctx.mcpReq.inputResponses?.user_context as { content?: { context?: string } } | undefined)?.content?.context;

/** Serves prompts, and completions of their arguments and of the template's, on the server. */
export function servePrompts(server: Server, era: ProtocolEra): void {
  const prompts = era === "modern" ? [...PROMPTS, CONTEXT_PROMPT] : PROMPTS;
  server.setRequestHandler("prompts/list", async () => ({ prompts }));
  server.setRequestHandler("prompts/get", async (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    if (era === "modern" && name === CONTEXT_PROMPT.name) {
      const context = contextAnswer(ctx);
      if (context === undefined) {
        const ask = inputRequired.elicit({
          message: "What context should the prompt use?",
          requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
        });
        return inputRequired({ inputRequests: { user_context: ask } });
      }
      return { messages: [{ role: "user", content: { type: "text", text: `Answer with this context in mind: ${context}` } }] };
    }
    const messages = promptMessages(name, args);
    if (!messages) throw new Error(`Unknown prompt: ${name}`);
    return { messages } as never;
  });
  server.setRequestHandler("completion/complete", async (request) => ({ completion: complete(request.params.argument.value) }));
}
