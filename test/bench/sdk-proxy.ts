import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { serveFetch } from "../support/http-server";

/**
 * The plainest HTTP MCP proxy there is: the official SDK's stateless handler, whose tools/call is forwarded to the
 * upstream with one kept Client (2026-07-28, its own fetch). No governance, no record, nothing filtered: what any
 * HTTP gateway built on the same SDK pays before it does anything of its own, measured beside toolgate's proxy.
 */
export async function startSdkProxy(upstreamUrl: string) {
  const forward = new Client({ name: "bench-sdk-proxy", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await forward.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));
  const handler = createMcpHandler(
    () => {
      const server = new Server({ name: "bench-sdk-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/call", async ({ params }) => (await forward.callTool({ name: params.name, arguments: params.arguments ?? {} })) as CallToolResult);
      return server;
    },
    { legacy: "stateless", responseMode: "auto" },
  );
  const served = await serveFetch((request) => handler.fetch(request));
  return {
    url: `${served.url}/mcp`,
    close: async () => {
      await forward.close();
      await served.close();
    },
  };
}
