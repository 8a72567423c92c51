import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serve } from "@hono/node-server";
import * as z from "zod";
import { ANSWER_AT_ONCE_STDIO, startAnswerAtOnceHttp } from "./answer-at-once";
import type { DynamoRecorder, DynamoRequest } from "./dynamo-record";
import type { DynamoFloor } from "./floor";
import { startSdkProxy } from "./sdk-proxy";
import { httpClient, inShuffledRounds, percentile } from "./support";
import type { HttpClient, Note, Out } from "./support";

const WARMUP = 100;
const MEASURED = 1_000;
/** The large answer's size, and the calls made of each large-answer leg: a page of issues as an MCP server returns it (JSON text). */
const LARGE_KIB = 256;
const LARGE_WARMUP = 30;
const LARGE_MEASURED = 300;

/** JSON text of about `kib` KiB: a list of issues, as a GitHub MCP server's list_issues answers. */
function issuesJson(kib: number, i: number): string {
  const issue = (n: number) => ({ number: n, title: "Fix the flaky test in the parser", state: "open", user: { login: "octocat", id: 1 }, labels: ["bug"] });
  const issues = [];
  for (let n = 0; issues.length * 100 < kib * 1024; n++) issues.push(issue(i * 10_000 + n));
  return JSON.stringify(issues, null, 1);
}

/** One call; a caller that times itself returns its own ms (the floor times its requests, not its planning). */
export type Caller = (i: number) => Promise<unknown>;

/** The bench upstreams' bench_echo: the same http executor toolgate calls, asked as toolgate asks it. */
export async function echoedByExecutor(executorUrl: string, args: { i: number; text: string }) {
  const response = await fetch(executorUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ callId: `peer_${args.i}`, tool: "bench_echo", arguments: args, agentId: "peer", roleId: "peer" }),
  });
  const result = (await response.json()) as { content: string };
  return { content: [{ type: "text" as const, text: result.content }] };
}

/** The caller, with the DynamoDB requests of each of its calls handed to `keep` (the last one's, for its floor to replay). */
export const recorded =
  (recorder: DynamoRecorder, caller: Caller, keep: (requests: DynamoRequest[]) => void): Caller =>
  async (i) => {
    recorder.begin();
    try {
      return await caller(i);
    } finally {
      keep(recorder.end());
    }
  };

/**
 * The peer's upstream: an MCP server whose bench_echo forwards to the same http executor toolgate calls, bench_issues
 * answering JSON text of the size asked for, and a tool the proxy hides.
 */
async function startUpstream(executorUrl: string) {
  const factory = () => {
    const server = new McpServer({ name: "bench-upstream", version: "1.0.0" });
    server.registerTool("bench_echo", { description: "Echoes its input.", inputSchema: z.object({ i: z.number().int(), text: z.string() }) }, (args) => echoedByExecutor(executorUrl, args));
    server.registerTool("bench_issues", { description: "Lists issues.", inputSchema: z.object({ i: z.number().int(), kib: z.number().int() }) }, async ({ i, kib }) => ({
      content: [{ type: "text", text: issuesJson(kib, i) }],
    }));
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

/** p50 and p99 of calls made one at a time, in a new random order each round (see inShuffledRounds). */
export async function interleaved<Name extends string>(callers: Record<Name, Caller>, { warmup = WARMUP, measured = MEASURED } = {}) {
  const names = Object.keys(callers) as Name[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  let i = 0;
  for (let n = 0; n < warmup; n++) for (const name of names) await callers[name](i++);
  await inShuffledRounds(names, measured, async (name) => {
    const started = performance.now();
    const own = await callers[name](i++);
    samples[name].push(typeof own === "number" ? own : performance.now() - started);
  });
  return Object.fromEntries(names.map((name) => [name, { p50: percentile(samples[name], 50), p99: percentile(samples[name], 99) }])) as Record<
    Name,
    { p50: number; p99: number }
  >;
}

export const calling = (client: Client, tool = "bench_echo"): Caller => async (i) => {
  const result = await client.callTool({ name: tool, arguments: { i, text: `mcp ${i}` } });
  if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
};

/** A bench_issues call (under the name the client knows it by) answering about `kib` KiB of JSON text. */
const listing = (client: Client, tool: string, kib: number): Caller => async (i) => {
  const result = await client.callTool({ name: tool, arguments: { i, kib } });
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
  if (result.isError || text.length < kib * 1024 * 0.9) throw new Error(`${tool} failed: ${text.slice(0, 200)}`);
};

/**
 * The tools/call the v2 Client sends (same headers, same _meta), posted with the bench's plain HTTP client: the one
 * that makes the direct executor calls, so the client's own cost is the same on both legs of toolgate's overhead.
 */
function posting(toolgate: HttpClient, token: string): Caller {
  const headers = {
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "bench_echo",
  };
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return async (i) => {
    const params = { name: "bench_echo", arguments: { i, text: `mcp ${i}` }, _meta };
    const answer = await toolgate.json("POST", "/mcp", 200, { token, headers, body: { jsonrpc: "2.0", id: i, method: "tools/call", params } });
    if (!answer.result || answer.result.isError) throw new Error(`tools/call failed: ${JSON.stringify(answer)}`);
  };
}

/**
 * An MCP tools/call through toolgate against the same call through a filtering MCP proxy from npm (mcp-remote, driven
 * over stdio, in front of an MCP server that forwards to the same executor), each minus its direct path, with the
 * DynamoDB floor of toolgate's call replayed among them.
 *
 * Each overhead is a difference between two legs driven by the same client, so that client's own cost cancels:
 * toolgate's /mcp leg uses the plain HTTP client of the direct executor calls. The peer's legs both use the v2 Client,
 * but over stdio to mcp-remote and over HTTP to the server, and the Client costs less over stdio: that difference,
 * measured against two servers that answer at once (one over each), is added back for the like-for-like ratios
 * (*_like_for_like). The same /mcp call through the v2 Client is measured too (mcp_client_*, mcp_v2_client_*).
 */
export async function benchMcp(options: {
  toolgateUrl: string;
  agentToken: string;
  api: HttpClient;
  adminToken: string;
  executorUrl: string;
  direct: Caller;
  rest: Caller;
  recorder: DynamoRecorder;
  floor: DynamoFloor;
  out: Out;
  note: Note;
}) {
  const { out, recorder, floor } = options;
  const upstream = await startUpstream(options.executorUrl);
  const toolgate = httpClient(options.toolgateUrl);
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
  const sdkProxy = await startSdkProxy(upstream.url);
  const viaSdkProxy = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await viaSdkProxy.connect(new StreamableHTTPClientTransport(new URL(sdkProxy.url)));
  const throughSdkProxy = calling(viaSdkProxy);
  // The v2 Client as the peer's legs use it, over HTTP and over stdio, to servers that answer at once.
  const atOnce = await startAnswerAtOnceHttp();
  const viaAtOnceHttp = new Client({ name: "bench", version: "1.0.0" });
  await viaAtOnceHttp.connect(new StreamableHTTPClientTransport(new URL(atOnce.url)));
  const viaAtOnceStdio = new Client({ name: "bench", version: "1.0.0" });
  await viaAtOnceStdio.connect(
    new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", fileURLToPath(ANSWER_AT_ONCE_STDIO)], stderr: "ignore" }),
  );
  const proxy = createRequire(import.meta.url).resolve("mcp-remote/dist/proxy.js");
  const viaPeer = new Client({ name: "bench", version: "1.0.0" });
  await viaPeer.connect(
    new StdioClientTransport({ command: process.execPath, args: [proxy, upstream.url, "--allow-http", "--transport", "http-only", "--ignore-tool", "bench_hidden", "--silent"], stderr: "ignore" }),
  );
  // DynamoDB Local's latency drifts over a run by more than the few ms compared here: the floor subtracted is replayed
  // among these calls, from the requests of toolgate's last /mcp call.
  // Each path's own: a call forwarded to an MCP server writes a record of its own (the answer's summary with it).
  let lastCall: DynamoRequest[] = [];
  let lastProxyCall: DynamoRequest[] = [];
  let floorOperations = "";
  try {
    const peerTools = (await viaPeer.listTools()).tools.map((tool) => tool.name);
    if (peerTools.join() !== "bench_echo,bench_issues") throw new Error(`the proxy should list bench_echo and bench_issues only, it listed ${peerTools.join(", ")}`);
    const times = await interleaved({
      toolgate: recorded(recorder, posting(toolgate, options.agentToken), (requests) => (lastCall = requests)),
      floor: async () => {
        const ms = await floor.replay(lastCall);
        floorOperations = floor.operations;
        return ms;
      },
      proxyFloor: () => floor.replay(lastProxyCall),
      floorSpaced: () => floor.replay(lastCall, { spaced: true }),
      proxyFloorSpaced: () => floor.replay(lastProxyCall, { spaced: true }),
      direct: options.direct,
      rest: options.rest,
      toolgateV2Client: calling(viaToolgate),
      toolgateProxy: recorded(recorder, calling(viaToolgateProxy, "up_bench_echo"), (requests) => (lastProxyCall = requests)),
      peer: calling(viaPeer),
      upstream: calling(toUpstream),
      atOnceHttp: calling(viaAtOnceHttp),
      atOnceStdio: calling(viaAtOnceStdio),
      sdkProxy: throughSdkProxy,
      // Each replay times its own requests (not their planning), as the floor does.
      sdkProxyAmidFloor: async (i) => {
        const requests = lastProxyCall;
        const before = await floor.replay(requests.slice(0, -1));
        const started = performance.now();
        await throughSdkProxy(i);
        const forwarded = performance.now() - started;
        return before + forwarded + (await floor.replay(requests.slice(-1)));
      },
    });
    const floorP50 = times.floor.p50;
    const overheadP50 = times.toolgate.p50 - times.direct.p50;
    const peerP50 = times.peer.p50 - times.upstream.p50;
    const v2OverheadP50 = times.toolgateV2Client.p50 - times.direct.p50;
    const proxyP50 = times.toolgateProxy.p50 - times.upstream.p50;
    out("mcp_call_p50_ms", times.toolgate.p50.toFixed(2));
    out("mcp_call_overhead_p50_ms", overheadP50.toFixed(2));
    out("mcp_call_overhead_p99_ms", (times.toolgate.p99 - times.direct.p99).toFixed(2));
    out("mcp_dynamodb_floor_p50_ms", floorP50.toFixed(2));
    out("peer_mcp_call_p50_ms", times.peer.p50.toFixed(2));
    out("peer_mcp_overhead_p50_ms", peerP50.toFixed(2));
    out("peer_mcp_overhead_p99_ms", (times.peer.p99 - times.upstream.p99).toFixed(2));
    out("mcp_overhead_minus_floor_vs_peer", ((overheadP50 - floorP50) / peerP50).toFixed(2));
    out("mcp_dynamodb_floor_spaced_p50_ms", times.floorSpaced.p50.toFixed(2));
    out("mcp_overhead_minus_spaced_floor_vs_peer", ((overheadP50 - times.floorSpaced.p50) / peerP50).toFixed(2));
    out("mcp_minus_rest_p50_ms", (times.toolgate.p50 - times.rest.p50).toFixed(2));
    out("mcp_rest_overhead_minus_floor_p50_ms", (times.rest.p50 - times.direct.p50 - floorP50).toFixed(2));
    out("mcp_client_p50_ms", (times.toolgateV2Client.p50 - times.toolgate.p50).toFixed(2));
    out("mcp_v2_client_overhead_p50_ms", v2OverheadP50.toFixed(2));
    out("mcp_v2_client_overhead_minus_floor_vs_peer", ((v2OverheadP50 - floorP50) / peerP50).toFixed(2));
    out("mcp_upstream_call_p50_ms", times.upstream.p50.toFixed(2));
    out("mcp_proxy_overhead_p50_ms", proxyP50.toFixed(2));
    out("mcp_proxy_overhead_p99_ms", (times.toolgateProxy.p99 - times.upstream.p99).toFixed(2));
    out("mcp_proxy_dynamodb_floor_p50_ms", times.proxyFloor.p50.toFixed(2));
    out("mcp_proxy_overhead_minus_floor_vs_peer", ((proxyP50 - times.proxyFloor.p50) / peerP50).toFixed(2));
    out("mcp_proxy_dynamodb_floor_spaced_p50_ms", times.proxyFloorSpaced.p50.toFixed(2));
    out("mcp_proxy_overhead_minus_spaced_floor_vs_peer", ((proxyP50 - times.proxyFloorSpaced.p50) / peerP50).toFixed(2));
    const sdkProxyP50 = times.sdkProxy.p50 - times.upstream.p50;
    out("mcp_sdk_proxy_overhead_p50_ms", sdkProxyP50.toFixed(2));
    out("mcp_sdk_proxy_overhead_vs_peer", (sdkProxyP50 / peerP50).toFixed(2));
    out("mcp_proxy_overhead_minus_floor_minus_sdk_proxy_p50_ms", (proxyP50 - times.proxyFloor.p50 - sdkProxyP50).toFixed(2));
    out("mcp_sdk_proxy_amid_floor_extra_p50_ms", (times.sdkProxyAmidFloor.p50 - times.proxyFloor.p50 - times.sdkProxy.p50).toFixed(2));
    out("mcp_sdk_proxy_amid_spaced_floor_extra_p50_ms", (times.sdkProxyAmidFloor.p50 - times.proxyFloorSpaced.p50 - times.sdkProxy.p50).toFixed(2));
    out("mcp_proxy_minus_sdk_proxy_amid_floor_vs_peer", ((times.toolgateProxy.p50 - times.sdkProxyAmidFloor.p50) / peerP50).toFixed(2));
    // The headline's own formula, for that ungoverned proxy amid the same requests: the ratio a proxy doing nothing of its own would score.
    out("mcp_sdk_proxy_amid_floor_overhead_minus_floor_vs_peer", ((times.sdkProxyAmidFloor.p50 - times.upstream.p50 - times.proxyFloor.p50) / peerP50).toFixed(2));
    // What the v2 Client costs more over HTTP than over stdio, which the peer's overhead leaves out (see above).
    const clientHttpMinusStdio = times.atOnceHttp.p50 - times.atOnceStdio.p50;
    const peerLikeForLike = peerP50 + clientHttpMinusStdio;
    out("mcp_client_http_minus_stdio_p50_ms", clientHttpMinusStdio.toFixed(2));
    out("peer_mcp_overhead_like_for_like_p50_ms", peerLikeForLike.toFixed(2));
    out("mcp_overhead_minus_floor_vs_peer_like_for_like", ((overheadP50 - floorP50) / peerLikeForLike).toFixed(2));
    out("mcp_proxy_overhead_minus_floor_vs_peer_like_for_like", ((proxyP50 - times.proxyFloor.p50) / peerLikeForLike).toFixed(2));
    // What carrying a large answer adds: each path's large call minus its small one, beyond the same difference directly.
    const large = await interleaved(
      {
        proxySmall: listing(viaToolgateProxy, "up_bench_issues", 1),
        proxyLarge: listing(viaToolgateProxy, "up_bench_issues", LARGE_KIB),
        peerSmall: listing(viaPeer, "bench_issues", 1),
        peerLarge: listing(viaPeer, "bench_issues", LARGE_KIB),
        upstreamSmall: listing(toUpstream, "bench_issues", 1),
        upstreamLarge: listing(toUpstream, "bench_issues", LARGE_KIB),
      },
      { warmup: LARGE_WARMUP, measured: LARGE_MEASURED },
    );
    const directExtra = large.upstreamLarge.p50 - large.upstreamSmall.p50;
    const proxyLargeExtra = large.proxyLarge.p50 - large.proxySmall.p50 - directExtra;
    const peerLargeExtra = large.peerLarge.p50 - large.peerSmall.p50 - directExtra;
    out("mcp_large_answer_kib", LARGE_KIB);
    out("mcp_proxy_large_answer_extra_p50_ms", proxyLargeExtra.toFixed(2));
    out("peer_mcp_large_answer_extra_p50_ms", peerLargeExtra.toFixed(2));
    out("mcp_proxy_large_answer_extra_vs_peer", (proxyLargeExtra / peerLargeExtra).toFixed(2));
    options.note(
      `mcp large answers: ${LARGE_MEASURED} calls each, interleaved, of bench_issues answering ${LARGE_KIB} KiB of JSON text and 1 KiB, ` +
        `through toolgate's /mcp (mcp executor), through mcp-remote and directly; *_large_answer_extra_* is a path's large call minus its ` +
        `small one, less the same difference directly: what carrying the larger answer costs that path (for toolgate, storage included: ` +
        `its call record keeps the answer's first 16 KiB, redacted)`,
    );
    options.note(
      `mcp: ${MEASURED} calls each, interleaved: toolgate's /mcp (2026-07-28) to the http executor, posted by the plain HTTP client ` +
        `of the direct calls; the executor directly; the same call over REST (POST /agents/:id/calls: mcp_rest_*, and mcp_minus_rest_* what /mcp adds to it); the DynamoDB floor of toolgate's last /mcp call (${floorOperations}; ` +
        `${await floor.removeItems()} floor items removed after); the same /mcp call through the v2 Client (mcp_v2_client_*; ` +
        `mcp_client_* is that Client's own cost); mcp-remote 0.15.1 over stdio (--ignore-tool) to an MCP server forwarding to ` +
        `the same executor, and that server directly, both through the v2 Client; toolgate's /mcp in front of that server ` +
        `(an mcp executor: mcp_proxy_*), through the v2 Client, with the DynamoDB floor of its own last call (mcp_proxy_dynamodb_floor_*); ` +
        `each floor also spaced as toolgate made its requests (*_floor_spaced_*: the settle as long after the admission as the tool ran, ` +
        `idle and not timed, since DynamoDB Local answers a request a few ms after the last ones more slowly than one right after them); ` +
        `the official SDK's stateless handler forwarding each tools/call to that server with one kept Client, ungoverned (mcp_sdk_proxy_*: ` +
        `what an HTTP gateway on the same SDK pays before doing anything of its own), through the v2 Client; and that proxy's ` +
        `call amid the proxied call's DynamoDB floor, replayed where toolgate makes those requests (the settle after the forward, the ` +
        `rest before: mcp_sdk_proxy_amid_floor_*); and the v2 Client to two MCP servers that answer at once, one over HTTP in ` +
        `this process and one over stdio in its own (as mcp-remote runs): mcp_client_http_minus_stdio_* is what the Client costs ` +
        `more over HTTP, which the peer's overhead leaves out (its legs are the Client over stdio and over HTTP), added back ` +
        `in peer_mcp_overhead_like_for_like_* and the *_vs_peer_like_for_like ratios`,
    );
  } finally {
    await Promise.allSettled([viaToolgate.close(), viaToolgateProxy.close(), toUpstream.close(), viaPeer.close(), viaSdkProxy.close(), viaAtOnceHttp.close(), viaAtOnceStdio.close()]);
    await atOnce.close();
    await sdkProxy.close();
    toolgate.close();
    await upstream.close();
  }
}
