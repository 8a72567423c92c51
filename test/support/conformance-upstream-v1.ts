import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { isLocalRequest, memoryEventStore } from "./conformance-content";
import type { ConformanceUpstream } from "./conformance-upstream";
import { servePrompts, serveResources } from "./conformance-v1-resources";
import { serveTools } from "./conformance-v1-tools";

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

const refuse = (response: ServerResponse, status: number, code: number, message: string): void =>
  void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));

/** The v1 upstream on 127.0.0.1 and a free port, serving MCP at /mcp. */
export async function startConformanceUpstreamV1(): Promise<ConformanceUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const subscriptions = new Set<string>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") return void response.writeHead(404).end("not found");
    if (!isLocalRequest(request.headers.host, request.headers.origin)) return refuse(response, 403, -32000, "Forbidden: not a local Host or Origin");
    const sessionId = request.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request, response);
    if (sessionId) return refuse(response, 404, -32001, "Session not found");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: memoryEventStore() as never,
      retryInterval: RECONNECT_AFTER_MS,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await conformanceServer(subscriptions).connect(transport);
    return transport.handleRequest(request, response);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => (response.headersSent ? response.end() : refuse(response, 500, -32603, error.message)));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}
