import { randomBytes, randomUUID } from "node:crypto";
import {
  createMcpHandler,
  createRequestStateCodec,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { ProtocolEra, ServerNotifier } from "@modelcontextprotocol/server";
import { memoryEventStore } from "./conformance-content";
import type { JsonObject } from "./conformance-content";
import { serveResources, servePrompts } from "./conformance-resources";
import { serveTools } from "./conformance-tools";
import type { ExtraTool } from "./conformance-tools";
import { serveFetch } from "./http-server";

export { RED_PIXEL_PNG, silentWav } from "./conformance-content";
export { CONFORMANCE_TOOLS } from "./conformance-tools";
export type { ExtraTool, Handler } from "./conformance-tools";

/**
 * The v2 SDK's reference upstream for toolgate's conformance run: an MCP server with what every server scenario of
 * the MCP conformance suite asks for (tools, resources, prompts, completions, logging, questions during a call),
 * written from the scenarios' own descriptions (`conformance list`, `--scenario <name>`) and proven by passing them
 * directly. It serves 2025-era clients statefully (a session per client, resumable streams), since a tool that asks
 * its client during a call needs the answer to reach the same server, and, with `modern`, MCP 2026-07-28 statelessly
 * (`server/discover`, `input_required` round trips with a sealed state, list changes on `subscriptions/listen`).
 * Requests whose Host or Origin is not this machine's are refused (DNS-rebinding protection).
 */
export type ConformanceUpstreamOptions = { modern?: boolean };
export type ConformanceUpstream = {
  url: string;
  /** The URIs its 2025-era sessions are subscribed to now (the v2 upstream's; the v1 one keeps none here). */
  subscribed?: ReadonlySet<string>;
  close(): Promise<void>;
};

/** Milliseconds a client waits before it reconnects to a stream the server closed (the SSE `retry` field). */
const RECONNECT_AFTER_MS = 100;

function conformanceServer(era: ProtocolEra, notify: ServerNotifier, extra: ExtraTool[], subscriptions: Set<string>): Server {
  const state = createRequestStateCodec<JsonObject>({ key: STATE_KEY });
  const capabilities = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: era === "legacy" ? { subscribe: true, listChanged: true } : { listChanged: true },
    completions: {},
    logging: {},
  };
  const server = new Server({ name: "conformance-upstream", version: "2.0.0" }, { capabilities, requestState: { verify: state.verify } });
  serveTools(server, { notify, state }, extra);
  serveResources(server, era, subscriptions);
  servePrompts(server, era);
  if (era === "legacy") server.setRequestHandler("logging/setLevel", async () => ({}));
  return server;
}

/** The key that seals every `requestState` this process mints, so a state the client altered is refused. */
const STATE_KEY = randomBytes(32);

/** The upstream on 127.0.0.1 and a free port, serving MCP at /mcp. */
export async function startConformanceUpstream(extra: ExtraTool[] = [], options: ConformanceUpstreamOptions = {}): Promise<ConformanceUpstream> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const subscriptions = new Set<string>();
  const modern = createMcpHandler(({ era }) => conformanceServer(era, modern.notify, extra, subscriptions), { legacy: "reject" });

  async function legacy(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request);
    if (sessionId) return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: memoryEventStore(),
      retryInterval: RECONNECT_AFTER_MS,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await conformanceServer("legacy", modern.notify, extra, subscriptions).connect(transport);
    return transport.handleRequest(request);
  }

  async function handle(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    const foreign = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    if (foreign) return foreign;
    if (!options.modern || (await isLegacyRequest(request))) return legacy(request);
    return modern.fetch(request);
  }

  const served = await serveFetch(handle);
  return {
    url: `${served.url}/mcp`,
    subscribed: subscriptions,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await modern.close();
      await served.close();
    },
  };
}
