import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { isLocalRequest, memoryEventStore } from "./conformance-content";
import type { ConformanceUpstream } from "./conformance-upstream";
import { servePrompts, serveResources } from "./conformance-v1-resources";
import { serveTools } from "./conformance-v1-tools";
import { refuse, serveV1Sessions } from "./v1-sessions";

/**
 * The v1 SDK's (`@modelcontextprotocol/sdk`) reference upstream for toolgate's conformance run: a stateful 2025-era
 * MCP server (a session per client that initializes, resumable streams) with what every server scenario a 2025
 * server can pass asks for, written from the scenarios' own descriptions and proven by passing them directly. Requests
 * whose Host or Origin is not this machine's are refused (DNS-rebinding protection).
 */

/** Milliseconds a client waits before it reconnects to a stream the server closed (the SSE `retry` field). */
const RECONNECT_AFTER_MS = 100;

function conformanceServer(subscriptions: Set<string>): Server {
  const capabilities = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };
  const server = new Server({ name: "conformance-upstream-v1", version: "1.0.0" }, { capabilities });
  serveTools(server);
  serveResources(server, subscriptions);
  servePrompts(server);
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  return server;
}

/** The v1 upstream on 127.0.0.1 and a free port, serving MCP at /mcp. */
export async function startConformanceUpstreamV1(): Promise<ConformanceUpstream> {
  const subscriptions = new Set<string>();
  return serveV1Sessions({
    server: () => conformanceServer(subscriptions),
    transport: () => ({ eventStore: memoryEventStore() as never, retryInterval: RECONNECT_AFTER_MS }),
    handle: async (request, response, toSession) => {
      if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") return void response.writeHead(404).end("not found");
      if (!isLocalRequest(request.headers.host, request.headers.origin)) return refuse(response, 403, -32000, "Forbidden: not a local Host or Origin");
      return toSession();
    },
  });
}
