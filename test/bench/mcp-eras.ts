import { createRequire } from "node:module";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { serveV1Sessions } from "../support/v1-sessions";
import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { calling, echoedByExecutor, interleaved, recorded } from "./mcp";
import type { HttpClient, Note, Out } from "./support";

/**
 * The bench's upstream as most published MCP servers are today: the v1 SDK (`@modelcontextprotocol/sdk`), protocol
 * 2025-11-25, stateful (a session per client, on Node's http server), its bench_echo forwarding to the same executor.
 */
function startV1Upstream(executorUrl: string) {
  return serveV1Sessions({
    server: () => {
      const server = new V1McpServer({ name: "bench-upstream-v1", version: "1.0.0" });
      server.registerTool("bench_echo", { description: "Echoes its input.", inputSchema: { i: z.number().int(), text: z.string() } }, (args) => echoedByExecutor(executorUrl, args));
      return server;
    },
    transport: () => ({ enableJsonResponse: true }),
  });
}

/**
 * toolgate's /mcp in front of a 2025-era (v1 SDK, stateful) upstream, against mcp-remote in front of the same server,
 * each minus the server directly, with the DynamoDB floor of toolgate's own call replayed among them: the proxy ratio
 * for an upstream of that era (the 2026-07-28 one is mcp_proxy_overhead_minus_floor_vs_peer, in benchMcp).
 */
export async function benchMcpEras(options: { toolgateUrl: string; api: HttpClient; adminToken: string; executorUrl: string; recorder: DynamoRecorder; floor: DynamoFloor; out: Out; note: Note }) {
  const { out, recorder, floor } = options;
  const upstream = await startV1Upstream(options.executorUrl);
  const admin = { token: options.adminToken };
  await options.api.json("PUT", "/groups/bench_mcp_v1", 201, { ...admin, body: { description: "The bench's 2025-era upstream MCP server.", executor: { type: "mcp", url: upstream.url, toolPrefix: "v1" } } });
  const role = await options.api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-mcp-v1", rolePrompt: "Bench role.", toolGroups: ["bench_mcp_v1"] } });
  const agent = await options.api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-mcp-v1-agent" } });
  const viaToolgate = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const toUpstream = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const viaPeer = new Client({ name: "bench", version: "1.0.0" });
  const proxy = createRequire(import.meta.url).resolve("mcp-remote/dist/proxy.js");
  try {
    await viaToolgate.connect(new StreamableHTTPClientTransport(new URL(`${options.toolgateUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
    await toUpstream.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    await viaPeer.connect(new StdioClientTransport({ command: process.execPath, args: [proxy, upstream.url, "--allow-http", "--transport", "http-only", "--silent"], stderr: "ignore" }));
    let lastCall: DynamoRequest[] = [];
    const times = await interleaved({
      toolgate: recorded(recorder, calling(viaToolgate, "v1_bench_echo"), (requests) => (lastCall = requests)),
      floor: () => floor.replay(lastCall),
      peer: calling(viaPeer),
      upstream: calling(toUpstream),
    });
    const proxyP50 = times.toolgate.p50 - times.upstream.p50;
    const peerP50 = times.peer.p50 - times.upstream.p50;
    out("mcp_v1_upstream_call_p50_ms", times.upstream.p50.toFixed(2));
    out("mcp_v1_proxy_overhead_p50_ms", proxyP50.toFixed(2));
    out("peer_mcp_v1_overhead_p50_ms", peerP50.toFixed(2));
    out("mcp_v1_proxy_dynamodb_floor_p50_ms", times.floor.p50.toFixed(2));
    out("mcp_proxy_overhead_minus_floor_vs_peer_v1", ((proxyP50 - times.floor.p50) / peerP50).toFixed(2));
    options.note(
      `mcp eras: toolgate's /mcp (an mcp executor) and mcp-remote 0.15.1, each in front of the same 2025-era upstream (the v1 SDK ` +
        `@modelcontextprotocol/sdk, stateful, protocol 2025-11-25, JSON responses), and that upstream directly, all through the v2 Client, ` +
        `interleaved with the DynamoDB floor of toolgate's last call: mcp_proxy_overhead_minus_floor_vs_peer_v1`,
    );
  } finally {
    await Promise.allSettled([viaToolgate.close(), toUpstream.close(), viaPeer.close()]);
    await upstream.close();
  }
}
