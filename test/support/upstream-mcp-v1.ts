import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CreateMessageResultSchema, ElicitResultSchema, InitializeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { InitializeRequest, InitializeResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { freePort } from "@toolgate/local/free-port";
import { serveV1Sessions } from "./v1-sessions";

/** The 2025-era protocol revisions a server on the v1 SDK speaks. */
export type V1Revision = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25";

export type V1UpstreamOptions = {
  /** The revision it answers every handshake with, whatever the client proposed (a server that speaks only that one). */
  revision?: V1Revision;
  /** No sessions: a server and transport per request, as the v1 SDK's stateless examples do. */
  stateless?: boolean;
  /**
   * It also offers 2026-07-28 (`server/discover`) yet answers a call as the v1 SDK does, without resultType (its lists
   * with the cache hints 2026-07-28 asks for): the conformance suite's reference server does this.
   */
  claims2026?: boolean;
};

export type V1Upstream = {
  url: string;
  /** Every HTTP request, oldest first: its method, headers (lower-case names) and JSON-RPC methods. */
  requests: Array<{ method: string; headers: Record<string, string>; rpc: string[] }>;
  /** What each tools/call of a tool that asks got back: the answer or the error's message. */
  outcomes: string[];
  /** The name of every tools/call it received, oldest first. */
  called: string[];
  close(): Promise<void>;
};

const FORM = { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] };
const sampleOf = (prompt: string) => ({ messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt } }], maxTokens: 20 });

/**
 * An MCP server written on the v1 SDK (`@modelcontextprotocol/sdk` 1.x, as most published servers are), over Streamable
 * HTTP on Node's http server. Its tools: `echo`, `count` (progress on the call's stream), `chatty` (a log message on the
 * call's stream and one on the session's own), `ask` / `sample` (on the call's stream, `extra.sendRequest`),
 * `ask_twice` (two questions in turn on the call's stream, each answer in its text), `ask_aside` / `sample_aside` /
 * `ask_later` (on the session's own stream, as `server.server.elicitInput` sends them:
 * the v1 SDK's way, relating them to no request; `ask_later` asks 100 ms after it has answered). `chatty`'s message on
 * the session's stream is followed by a ping there, so it has arrived before the call is answered. Bad answers: `flood`
 * (log messages on the call's stream), `huge` (a 50 MB resource), `hang` (none), `garbage` (a cut JSON body).
 */
export async function startV1Upstream(options: V1UpstreamOptions = {}): Promise<V1Upstream> {
  const requests: V1Upstream["requests"] = [];
  const outcomes: string[] = [];
  const called: string[] = [];
  const record = (outcome: Promise<unknown>) =>
    outcome.then(
      (answer) => void outcomes.push(JSON.stringify(answer)),
      (error: Error) => void outcomes.push(`refused: ${error.message}`),
    );

  const serverOf = () => {
    const server = new McpServer({ name: "upstream-v1", version: "1.0.0" }, { capabilities: { logging: {} } });
    if (options.revision) answeringAs(server, options.revision);
    const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
    server.registerTool("echo", { description: "Echoes its text.", inputSchema: { text: z.string() } }, async ({ text: said }) => text(said));
    server.registerTool("count", { description: "Reports its progress.", inputSchema: { steps: z.number().int() } }, async ({ steps }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await sleep(20);
        if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: step, total: steps } });
      }
      return text(`counted to ${steps}`);
    });
    server.registerTool("chatty", { description: "Logs on its call's stream and on the session's.", inputSchema: {} }, async (_args, extra) => {
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "on the call" } });
      await server.sendLoggingMessage({ level: "warning", data: "on the session" });
      await server.server.ping();
      return text("talked");
    });
    server.registerTool("flood", { description: "Sends log messages, each `size` characters, then answers.", inputSchema: { messages: z.number().int(), size: z.number().int() } }, async ({ messages, size }, extra) => {
      const data = "x".repeat(size);
      for (let sent = 0; sent < messages && !extra.signal.aborted; sent++) {
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
        if (sent % 100 === 0) await new Promise(setImmediate);
      }
      return text("flooded");
    });
    server.registerTool("huge", { description: "Answers with a 50 MB resource.", inputSchema: {} }, async () => ({
      content: [{ type: "resource" as const, resource: { uri: "file:///huge.txt", mimeType: "text/plain", text: "x".repeat(50 * 1024 * 1024) } }],
    }));
    server.registerTool("garbage", { description: "Its call is answered with a cut JSON body (by the HTTP server, before this runs).", inputSchema: {} }, async () => text("not garbage"));
    server.registerTool("hang", { description: "Never answers.", inputSchema: {} }, async (_args, extra) => {
      await new Promise((stop) => extra.signal.addEventListener("abort", stop, { once: true }));
      return text("stopped");
    });
    server.registerTool("ask", { description: "Asks its user who they are.", inputSchema: {} }, async (_args, extra) => {
      const answer = extra.sendRequest({ method: "elicitation/create", params: { message: "Who are you?", requestedSchema: FORM } }, ElicitResultSchema);
      await record(answer);
      return text(outcomes.at(-1)!);
    });
    server.registerTool("ask_twice", { description: "Asks its user who, then where, they are.", inputSchema: {} }, async (_args, extra) => {
      for (const message of ["Who are you?", "Where are you?"]) await record(extra.sendRequest({ method: "elicitation/create", params: { message, requestedSchema: FORM } }, ElicitResultSchema));
      return text(outcomes.slice(-2).join("\n"));
    });
    server.registerTool("sample", { description: "Asks the client's model.", inputSchema: { prompt: z.string() } }, async ({ prompt }, extra) => {
      await record(extra.sendRequest({ method: "sampling/createMessage", params: sampleOf(prompt) }, CreateMessageResultSchema));
      return text(outcomes.at(-1)!);
    });
    server.registerTool("ask_aside", { description: "Asks its user on the session's own stream.", inputSchema: {} }, async () => {
      await record(server.server.elicitInput({ message: "Who are you, aside?", requestedSchema: FORM }));
      return text(outcomes.at(-1)!);
    });
    server.registerTool("sample_aside", { description: "Asks the client's model on the session's own stream.", inputSchema: { prompt: z.string() } }, async ({ prompt }) => {
      await record(server.server.createMessage(sampleOf(prompt)));
      return text(outcomes.at(-1)!);
    });
    server.registerTool("ask_later", { description: "Asks on the session's own stream once it has answered.", inputSchema: {} }, async () => {
      setTimeout(() => void record(server.server.elicitInput({ message: "Still there?", requestedSchema: FORM }, { timeout: 2_000 })), 100);
      return text("asked later");
    });
    if (options.claims2026) listingWithCacheHints(server);
    return server;
  };

  const served = await serveV1Sessions({
    server: serverOf,
    stateless: options.stateless || options.claims2026,
    handle: async (request, response, toSession) => {
      const text = await bodyOf(request);
      const body = text ? (JSON.parse(text) as { method?: string; id?: unknown }) : undefined;
      const rpc = (Array.isArray(body) ? body : [body]).flatMap((message) => (typeof message?.method === "string" ? [message.method] : []));
      requests.push({ method: request.method!, headers: headersOf(request), rpc });
      if (rpc[0] === "tools/call") called.push(String((body as { params?: { name?: unknown } }).params?.name));
      if (options.claims2026 && body?.method === "server/discover") return discovered(response, body.id);
      if (options.claims2026) speaking2025(request);
      if (rpc[0] === "tools/call" && (body as { params?: { name?: string } }).params?.name === "garbage")
        return void response.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":');
      await toSession(body, body?.method === "initialize");
    },
  });
  return { ...served, requests, outcomes, called };
}

/** The server answers every handshake with `revision`, as a server that speaks only that revision does. */
function answeringAs(server: McpServer, revision: V1Revision) {
  const initialize = (server.server as unknown as { _oninitialize(request: InitializeRequest): Promise<InitializeResult> })._oninitialize.bind(server.server);
  server.server.setRequestHandler(InitializeRequestSchema, async (request) => ({ ...(await initialize(request)), protocolVersion: revision }));
}

type V1Handler = (request: unknown, extra: unknown) => Promise<Record<string, unknown>>;

/** Its tools/list answers carry the cache hints 2026-07-28 requires of a list (ttlMs, cacheScope). */
function listingWithCacheHints(server: McpServer) {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, V1Handler> })._requestHandlers;
  const list = handlers.get("tools/list")!;
  handlers.set("tools/list", async (request, extra) => ({ ...(await list(request, extra)), ttlMs: 0, cacheScope: "private" }));
}

/** The request as the v1 SDK takes it: its 2026-07-28 protocol version header read as 2025-11-25. */
function speaking2025(request: IncomingMessage) {
  const at = request.rawHeaders.findIndex((name, index) => index % 2 === 0 && name.toLowerCase() === "mcp-protocol-version");
  if (at >= 0) request.rawHeaders[at + 1] = "2025-11-25";
  if (request.headers["mcp-protocol-version"]) request.headers["mcp-protocol-version"] = "2025-11-25";
}

/** A server/discover answer offering 2026-07-28 only. */
function discovered(response: ServerResponse, id: unknown) {
  const result = {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {}, logging: {} },
    ttlMs: 0,
    cacheScope: "private",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "upstream-v1-claiming-2026", version: "1.0.0" } },
  };
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const headersOf = (request: IncomingMessage) => Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

/**
 * `@modelcontextprotocol/server-everything` (the MCP project's own test server, on the v1 SDK, stateful, resumable) in
 * its Streamable HTTP mode, as its bin runs it, in a child process on a free port of 127.0.0.1.
 */
export async function startServerEverything(): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const bin = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
  const child = spawn(process.execPath, [bin, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => void (output += chunk));
  await new Promise<void>((ready, fail) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk;
      if (output.includes(`listening on port ${port}`)) ready();
    });
    child.once("exit", (code) => fail(new Error(`server-everything exited (${code}):\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once("exit", () => done()), child.kill("SIGTERM")))),
  };
}
