import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serve } from "@hono/node-server";
import * as z from "zod";
import { percentile } from "./support";
import type { HttpClient } from "./support";

const WARMUP = 100;
const MEASURED = 500;

type Out = (name: string, value: string | number) => void;
type Note = (text: string) => void;
type Caller = (i: number) => Promise<unknown>;

/** The peer's upstream: an MCP server whose bench_echo forwards to the same http executor toolgate calls, plus a tool the proxy hides. */
async function startUpstream(executorUrl: string) {
  const factory = () => {
    const server = new McpServer({ name: "bench-upstream", version: "1.0.0" });
    server.registerTool("bench_echo", { description: "Echoes its input.", inputSchema: z.object({ i: z.number().int(), text: z.string() }) }, async (args) => {
      const response = await fetch(executorUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ callId: `peer_${args.i}`, tool: "bench_echo", arguments: args, agentId: "peer", roleId: "peer" }),
      });
      const result = (await response.json()) as { content: string };
      return { content: [{ type: "text", text: result.content }] };
    });
    server.registerTool("bench_hidden", { description: "Filtered out by the proxy.", inputSchema: z.object({}) }, async () => ({ content: [{ type: "text", text: "hidden" }] }));
    return server;
  };
  const handler = createMcpHandler(factory, { responseMode: "json" });
  const server = serve({ fetch: (request: Request) => handler.fetch(request), port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((ready) => (server.listening ? ready() : server.once("listening", () => ready())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}

/** p50 and p99 of calls made one at a time, each caller taking turns first. */
async function interleaved(callers: Record<string, Caller>) {
  const names = Object.keys(callers);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  let i = 0;
  for (let n = 0; n < WARMUP; n++) for (const name of names) await callers[name]!(i++);
  for (let n = 0; n < MEASURED; n++)
    for (let step = 0; step < names.length; step++) {
      const name = names[(n + step) % names.length]!;
      const started = performance.now();
      await callers[name]!(i++);
      samples[name]!.push(performance.now() - started);
    }
  return Object.fromEntries(names.map((name) => [name, { p50: percentile(samples[name]!, 50), p99: percentile(samples[name]!, 99) }]));
}

const calling = (client: Client, tool = "bench_echo"): Caller => async (i) => {
  const result = await client.callTool({ name: tool, arguments: { i, text: `mcp ${i}` } });
  if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
};

/**
 * The tools/call the v2 Client sends (same headers, same _meta), posted as plain JSON on one kept-alive socket: the
 * Client's own cost is its call minus this one, to the same server.
 */
function posting(url: string, token: string) {
  const target = new URL(url);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const call: Caller = (i) =>
    new Promise((done, fail) => {
      const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "bench_echo", arguments: { i, text: `mcp ${i}` }, _meta: meta } }));
      const headers = {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "content-length": body.length,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "bench_echo",
        authorization: `Bearer ${token}`,
      };
      const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200 || JSON.parse(text).result?.isError) fail(new Error(`plain tools/call failed: ${res.statusCode} ${text}`));
          else done(undefined);
        });
        res.on("error", fail);
      });
      req.on("error", fail);
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}

/**
 * An MCP tools/call through toolgate against the same call through a filtering MCP proxy from npm (mcp-remote, driven
 * over stdio, in front of an MCP server that forwards to the same executor), each minus its direct path.
 */
export async function benchMcp(options: {
  toolgateUrl: string;
  agentToken: string;
  api: HttpClient;
  adminToken: string;
  executorUrl: string;
  direct: Caller;
  floorP50Ms: number;
  out: Out;
  note: Note;
}) {
  const upstream = await startUpstream(options.executorUrl);
  const plainToToolgate = posting(`${options.toolgateUrl}/mcp`, options.agentToken);
  const viaToolgate = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await viaToolgate.connect(
    new StreamableHTTPClientTransport(new URL(`${options.toolgateUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${options.agentToken}` } } }),
  );
  // The like-for-like peer of mcp-remote: toolgate itself in front of the same MCP server, through an mcp executor.
  const admin = { token: options.adminToken };
  await options.api.json("PUT", "/groups/bench_mcp", 201, { ...admin, body: { description: "The bench's upstream MCP server.", executor: { type: "mcp", url: upstream.url, toolPrefix: "up" } } });
  const role = await options.api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-mcp", rolePrompt: "Bench role.", toolGroups: ["bench_mcp"] } });
  const proxied = await options.api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-mcp-agent" } });
  const viaToolgateProxy = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await viaToolgateProxy.connect(
    new StreamableHTTPClientTransport(new URL(`${options.toolgateUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${proxied.token}` } } }),
  );
  const toUpstream = new Client({ name: "bench", version: "1.0.0" });
  await toUpstream.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
  const proxy = createRequire(import.meta.url).resolve("mcp-remote/dist/proxy.js");
  const viaPeer = new Client({ name: "bench", version: "1.0.0" });
  await viaPeer.connect(
    new StdioClientTransport({ command: process.execPath, args: [proxy, upstream.url, "--allow-http", "--transport", "http-only", "--ignore-tool", "bench_hidden", "--silent"], stderr: "ignore" }),
  );
  try {
    const peerTools = (await viaPeer.listTools()).tools.map((tool) => tool.name);
    if (peerTools.join() !== "bench_echo") throw new Error(`the proxy should list only bench_echo, it listed ${peerTools.join(", ")}`);
    const times = await interleaved({
      toolgate: calling(viaToolgate),
      direct: options.direct,
      toolgateProxy: calling(viaToolgateProxy, "up_bench_echo"),
      peer: calling(viaPeer),
      upstream: calling(toUpstream),
      plainToToolgate: plainToToolgate.call,
    });
    const overheadP50 = times.toolgate!.p50 - times.direct!.p50;
    const peerP50 = times.peer!.p50 - times.upstream!.p50;
    options.out("mcp_call_p50_ms", times.toolgate!.p50.toFixed(2));
    options.out("mcp_call_overhead_p50_ms", overheadP50.toFixed(2));
    options.out("mcp_call_overhead_p99_ms", (times.toolgate!.p99 - times.direct!.p99).toFixed(2));
    options.out("peer_mcp_call_p50_ms", times.peer!.p50.toFixed(2));
    options.out("peer_mcp_overhead_p50_ms", peerP50.toFixed(2));
    options.out("peer_mcp_overhead_p99_ms", (times.peer!.p99 - times.upstream!.p99).toFixed(2));
    options.out("mcp_overhead_minus_floor_vs_peer", ((overheadP50 - options.floorP50Ms) / peerP50).toFixed(2));
    options.out("mcp_call_plain_overhead_p50_ms", (times.plainToToolgate!.p50 - times.direct!.p50).toFixed(2));
    options.out("mcp_client_p50_ms", (times.toolgate!.p50 - times.plainToToolgate!.p50).toFixed(2));
    const proxyP50 = times.toolgateProxy!.p50 - times.upstream!.p50;
    options.out("mcp_upstream_call_p50_ms", times.upstream!.p50.toFixed(2));
    options.out("mcp_proxy_overhead_p50_ms", proxyP50.toFixed(2));
    options.out("mcp_proxy_overhead_p99_ms", (times.toolgateProxy!.p99 - times.upstream!.p99).toFixed(2));
    options.out("mcp_proxy_overhead_minus_floor_vs_peer", ((proxyP50 - options.floorP50Ms) / peerP50).toFixed(2));
    options.note(
      `mcp: ${MEASURED} calls each, interleaved: toolgate's /mcp (2026-07-28) to the http executor, the executor directly, ` +
        `mcp-remote 0.15.1 over stdio (--ignore-tool) to an MCP server forwarding to the same executor, toolgate's /mcp in front of ` +
        `that server (an mcp executor: mcp_proxy_*), and that server directly; ` +
        `the floor subtracted is the guarded calls' DynamoDB floor p50 (${options.floorP50Ms.toFixed(2)} ms); ` +
        `mcp_call_plain_* is toolgate's /mcp driven by plain HTTP like the guarded calls, and mcp_client_* the v2 Client's own ` +
        `cost on top of it (a diagnostic split: the ratio is unchanged, though the peer's legs both pay that cost and cancel it)`,
    );
  } finally {
    await Promise.allSettled([viaToolgate.close(), viaToolgateProxy.close(), toUpstream.close(), viaPeer.close()]);
    plainToToolgate.close();
    await upstream.close();
  }
}
