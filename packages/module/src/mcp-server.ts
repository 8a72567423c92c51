import { randomUUID } from "node:crypto";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { JWTVerifyGetKey } from "jose";
import { CALL_TOKEN_HEADER, CallRefused, verifyCallToken } from "./call-token.js";
import type { VerifiedCall } from "./call-token.js";
import { ANONYMOUS_AGENT, SIGNED_CALL_KEY } from "./mcp.js";
import type { McpEndpoint, McpOptions } from "./mcp.js";
import type { ReplayStore } from "./replay.js";
import { runTool } from "./run.js";
import type { ToolAnswer } from "./run.js";
import type { ModuleTool } from "./tool.js";

/** What the MCP server of a module is made of: the module's tools, and where the keys and accepted tokens are when only signed calls run. */
export type ServedModule = {
  id: string;
  version: string;
  tools: ReadonlyMap<string, ModuleTool>;
  keys: () => JWTVerifyGetKey;
  replayStore: ReplayStore;
};

const toMcpTool = (tool: ModuleTool): Tool => ({
  name: tool.name,
  description: tool.definition.function.description,
  inputSchema: { ...tool.definition.function.parameters, type: "object" },
  ...(tool.definition["x-toolgate"]?.dangerous === true ? { annotations: { destructiveHint: true } } : {}),
});

const toResult = (answer: ToolAnswer): CallToolResult => {
  const content: CallToolResult["content"] = [{ type: "text", text: answer.content }];
  if (answer.type === "error") return { content, isError: true };
  const structured = answer.type === "json" && answer.value !== null && typeof answer.value === "object" && !Array.isArray(answer.value);
  return structured ? { content, structuredContent: answer.value as Record<string, unknown> } : { content };
};

/** The tools/call messages of a request body: one JSON-RPC message, or a batch of them. */
const toolCallsOf = (body: unknown): Array<{ name: unknown; arguments: unknown }> =>
  (Array.isArray(body) ? body : [body]).flatMap((message: { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null) =>
    message?.method === "tools/call" ? [{ name: message.params?.name, arguments: message.params?.arguments ?? {} }] : [],
  );

const refusal = (message: string) => Response.json({ error: "unauthenticated", message }, { status: 401 });

/**
 * The module's tools as an MCP server over Streamable HTTP (the official SDK, stateless: any instance serves any
 * request). With `signedCallsOnly`, a tools/call runs only with a token toolgate signed for this module, this tool
 * and these arguments, used once (else 401 and nothing runs); listing the tools stays open, as it runs nothing.
 */
export function mcpEndpoint(served: ServedModule, options: McpOptions): McpEndpoint {
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const server = new Server({ name: served.id, version: served.version }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", () => ({ tools: [...served.tools.values()].map(toMcpTool) }));
      server.setRequestHandler("tools/call", async (request, ctx) => {
        const tool = served.tools.get(request.params.name);
        if (!tool) return { content: [{ type: "text", text: `The module "${served.id}" has no tool "${request.params.name}".` }], isError: true };
        const signed = authInfo?.extra?.[SIGNED_CALL_KEY] as VerifiedCall | undefined;
        const call = signed ?? { callId: randomUUID(), tool: tool.name, agent: ANONYMOUS_AGENT, deadline: Number.POSITIVE_INFINITY };
        return toResult(await runTool(tool, request.params.arguments ?? {}, call, ctx.mcpReq.signal));
      });
      return server;
    },
    { legacy: "stateless", responseMode: "auto" },
  );

  return {
    async fetch(request) {
      if (!options.signedCallsOnly || request.method !== "POST") return handler.fetch(request);
      const body: unknown = await request.clone().json().catch(() => undefined);
      const calls = toolCallsOf(body);
      if (calls.length === 0) return handler.fetch(request, { parsedBody: body });
      if (calls.length > 1) return refusal("A signed call is one tools/call per request.");
      const token = request.headers.get(CALL_TOKEN_HEADER);
      try {
        const signed = { tool: calls[0]!.name, arguments: calls[0]!.arguments };
        const call = await verifyCallToken(token, signed, served.keys(), options.url ?? request.url.split("?")[0]!, { replayStore: served.replayStore });
        return handler.fetch(request, { parsedBody: body, authInfo: { token: token!, clientId: "toolgate", scopes: [], extra: { [SIGNED_CALL_KEY]: call } } });
      } catch (error) {
        if (error instanceof CallRefused) return refusal(error.message);
        throw error;
      }
    },
    close: () => handler.close(),
  };
}
