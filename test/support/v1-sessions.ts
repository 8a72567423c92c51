import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { StreamableHTTPServerTransportOptions } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** A v1 SDK server, `McpServer` or the low-level `Server`. */
type V1Server = { connect(transport: StreamableHTTPServerTransport): Promise<void> };

/**
 * Hands the request on to its session, with its body when it was read already. A request without a session opens one
 * when `opens` (the transport refuses what cannot start a session); one whose session is unknown is refused with 404.
 */
export type ToSession = (body?: unknown, opens?: boolean) => Promise<void>;

export type V1SessionsOptions = {
  /** A new server for each session (for each request when stateless). */
  server: () => V1Server;
  /** Each new transport's options beyond its session: an event store of its own, a retry interval, JSON responses. */
  transport?: () => Omit<StreamableHTTPServerTransportOptions, "sessionIdGenerator" | "onsessioninitialized" | "onsessionclosed">;
  /** No sessions: a server and transport per request, as the v1 SDK's stateless examples do. */
  stateless?: boolean;
  /** Sees each request first, and answers it or hands it on; without it, every request goes to its session. */
  handle?: (request: IncomingMessage, response: ServerResponse, toSession: ToSession) => Promise<void>;
};

/** A JSON-RPC error answered outside any session. */
export const refuse = (response: ServerResponse, status: number, code: number, message: string): void =>
  void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));

/**
 * MCP servers on the v1 SDK (`@modelcontextprotocol/sdk`, as most published servers are) over Streamable HTTP on
 * Node's http server, on 127.0.0.1 and a free port: a server and transport per session, found by its Mcp-Session-Id.
 */
export async function serveV1Sessions(options: V1SessionsOptions): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const open = async () => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      ...options.transport?.(),
      sessionIdGenerator: options.stateless ? undefined : randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
    await options.server().connect(transport);
    return transport;
  };
  const handle = options.handle ?? ((_request, _response, toSession) => toSession());

  const http = createServer((request, response) => {
    const toSession: ToSession = async (body, opens = true) => {
      const id = request.headers["mcp-session-id"];
      const transport = options.stateless ? await open() : id ? sessions.get(String(id)) : opens ? await open() : undefined;
      if (!transport) return refuse(response, 404, -32001, "Session not found");
      await transport.handleRequest(request, response, body);
    };
    handle(request, response, toSession).catch((error: Error) => (response.headersSent ? response.end() : refuse(response, 500, -32603, error.message)));
  });
  await new Promise<void>((ready) => http.listen(0, "127.0.0.1", ready));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await new Promise<void>((done) => {
        http.close(() => done());
        http.closeAllConnections();
      });
    },
  };
}
