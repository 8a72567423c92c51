import { createMcpHandler, originValidationResponse, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import type { CallToolResult, McpHttpHandler, McpRequestContext } from "@modelcontextprotocol/server";
import { loadView } from "../access/index";
import type { Agent } from "../agent/schema";
import { storeUnavailable, StoreUnavailableError, ToolgateError } from "../error";
import { guardedCall } from "../guard/index";
import type { GuardDeps } from "../guard/index";
import { completed, refused, waiting } from "./results";
import type { McpSettings } from "./schema";
import { StaleCursorError, toolsPage } from "./tools";

export { DEFAULT_MCP_SETTINGS, McpSettings } from "./schema";
export { annotationsOf, mcpTools } from "./tools";
export type { RefusalMeta } from "./results";

/** Who is on the other end of one MCP request, and what serves them; authenticated at the edge. */
export type McpCaller = { deps: GuardDeps; agent: Agent; settings: McpSettings };

const MAX_REQUEST_BYTES = 1024 * 1024;
const SERVER_INFO = { name: "toolgate", version: "1.0.0" };
const INSTRUCTIONS =
  "toolgate governs these tools: every call is checked against your role's policy and recorded. A refused call comes back as an error result whose _meta.code says why and whether to retry.";

const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

const revoked = (agent: Agent, current: Agent | undefined) => !current || current.tokenVersion !== agent.tokenVersion || current.status !== "active";

/** The caller's tools now: its role and the catalog are read fresh, and so is the agent, so a revoked token lists nothing. */
async function listTools({ deps, agent, settings }: McpCaller, cursor: string | undefined) {
  const [current, view] = await Promise.all([deps.agents.refresh(agent.id), loadView(deps, agent, "fresh")]);
  if (revoked(agent, current)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "This agent's token has been revoked or the agent terminated.");
  try {
    return toolsPage(view, settings.pageSize, cursor);
  } catch (error) {
    throw error instanceof StaleCursorError ? invalidParams(error.message) : error;
  }
}

/** One tools/call through the guard, exactly as POST /agents/:id/calls; an unknown name is a protocol error, as MCP says. */
async function callTool({ deps, agent }: McpCaller, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const response = await guardedCall(deps, agent, { tool: name, arguments: args });
    return response.status === 200 ? completed(response.body.callId, response.body.result) : waiting(agent.id, response);
  } catch (error) {
    if (error instanceof ToolgateError && error.code === "unknown_tool") throw invalidParams(`Unknown tool: ${name}`);
    if (error instanceof ToolgateError) return refused(error);
    if (error instanceof StoreUnavailableError) return refused(storeUnavailable(error));
    throw error;
  }
}

function serverFor(caller: McpCaller): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { "tools/list": { ttlMs: caller.settings.listTtlMs, cacheScope: "private" } },
  });
  server.setRequestHandler("tools/list", (request) => listTools(caller, request.params?.cursor));
  server.setRequestHandler("tools/call", (request) => callTool(caller, request.params.name, request.params.arguments ?? {}));
  return server;
}

const callerOf = (context: McpRequestContext): McpCaller => {
  const caller = context.authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new Error("An MCP request reached the server without an authenticated agent.");
  return caller;
};

const logError = (error: Error) => console.error(JSON.stringify({ level: "error", area: "mcp", error: error.message }));

let handler: McpHttpHandler | undefined;

/** One handler per process; nothing in it outlives a request, so any instance serves any request (stateless, both eras). */
const mcpHandler = () =>
  (handler ??= createMcpHandler((context) => serverFor(callerOf(context)), {
    legacy: "stateless",
    responseMode: "json",
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: logError,
  }));

/**
 * Serves one MCP request of an authenticated agent: browsers only from allowed origins, then the SDK's handler.
 * `parsedBody` is the POST's JSON when the edge has read it already (the request's body is then not read again).
 */
export async function serveMcp(request: Request, parsedBody: unknown, caller: McpCaller): Promise<Response> {
  const ownHost = new URL(request.url).hostname;
  const rejected = originValidationResponse(request, [ownHost, ...caller.settings.allowedOrigins]);
  if (rejected) return rejected;
  const authInfo = { token: "[agent token]", clientId: caller.agent.id, scopes: [], extra: { caller } };
  return mcpHandler().fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
}
