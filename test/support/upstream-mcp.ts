import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";

/** One toolset of the GitHub MCP server (github/github-mcp-server), with its tools exactly as its tools/list serves them. */
export type GithubToolset = { id: string; title: string; description: string; tools: Tool[] };

// A copy of /work/shared/data/github-mcp-toolsets.json (MIT, github/github-mcp-server at the commit it names), so the tests stand alone.
const GITHUB_TOOLSETS_FILE = new URL("./github-mcp-toolsets.json", import.meta.url);

/** The GitHub MCP server's real tool definitions: 21 toolsets, 86 tools. */
export function githubToolsets(): GithubToolset[] {
  return (JSON.parse(readFileSync(GITHUB_TOOLSETS_FILE, "utf8")) as { toolsets: GithubToolset[] }).toolsets;
}

export const githubToolset = (id: string) => {
  const toolset = githubToolsets().find((candidate) => candidate.id === id);
  if (!toolset) throw new Error(`no GitHub toolset "${id}"`);
  return toolset;
};

/** A GitHub toolset as a toolgate group body: the server's real definitions in the OpenAI function format, behind an http executor. */
export const githubGroup = (id: string, executorUrl = "http://127.0.0.1:9/run") => {
  const toolset = githubToolset(id);
  return {
    description: toolset.description,
    executor: { type: "http", url: executorUrl },
    tools: toolset.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
  };
};

/** A tools/call the upstream received: the tool's name, its arguments and the HTTP headers it came with (lower-case names). */
export type UpstreamCall = { name: string; arguments: Record<string, unknown>; headers: Record<string, string>; signal: AbortSignal };

export type UpstreamAnswer = (call: UpstreamCall) => CallToolResult | Promise<CallToolResult>;

export type UpstreamMcpOptions = {
  /** What tools/list serves; changeable later with setTools. */
  tools: Tool[];
  /** Tools per tools/list page; the rest follows behind nextCursor. All in one page when unset. */
  pageSize?: number;
  /** How tools/call answers; by default with the tool's name and arguments as text. */
  answer?: UpstreamAnswer;
  /** Where the MCP endpoint is served (default /mcp). */
  path?: string;
};

export type UpstreamMcp = {
  /** The MCP endpoint, e.g. http://127.0.0.1:54321/mcp. */
  url: string;
  /** Every HTTP request the endpoint received, oldest first: its method, headers (lower-case names) and JSON-RPC methods. */
  requests: Array<{ method: string; headers: Record<string, string>; rpc: string[] }>;
  /** Every tools/call, oldest first. */
  calls: UpstreamCall[];
  /** Cursors of every tools/list request ("" for the first page). */
  listCursors: string[];
  /** Calls whose request was cancelled (the client aborted it) before an answer was sent. */
  cancelled: UpstreamCall[];
  setTools(tools: Tool[]): void;
  answer(answer: UpstreamAnswer): void;
  close(): Promise<void>;
};

export const textAnswer: UpstreamAnswer = (call) => ({ content: [{ type: "text", text: `${call.name} ${JSON.stringify(call.arguments)}` }] });

/**
 * A real MCP server (the SDK's createMcpHandler over Streamable HTTP) on 127.0.0.1 and a free port, serving the given tool
 * definitions as they are (raw JSON Schemas), paging tools/list when asked to, and recording what it receives.
 */
export async function startUpstreamMcp(options: UpstreamMcpOptions): Promise<UpstreamMcp> {
  let tools = options.tools;
  let answer = options.answer ?? textAnswer;
  const path = options.path ?? "/mcp";
  const requests: UpstreamMcp["requests"] = [];
  const calls: UpstreamCall[] = [];
  const cancelled: UpstreamCall[] = [];
  const listCursors: string[] = [];

  const factory = ({ requestInfo }: { requestInfo?: Request }) => {
    const headers = Object.fromEntries(requestInfo?.headers ?? []);
    const server = new Server({ name: "upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async (request) => {
      const cursor = request.params?.cursor ?? "";
      listCursors.push(cursor);
      const start = cursor ? Number(cursor) : 0;
      const size = options.pageSize ?? tools.length;
      const end = start + size;
      return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
    });
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const call: UpstreamCall = { name: request.params.name, arguments: request.params.arguments ?? {}, headers, signal: ctx.mcpReq.signal };
      calls.push(call);
      const abandoned = () => cancelled.includes(call) || cancelled.push(call);
      ctx.mcpReq.signal.addEventListener("abort", abandoned, { once: true });
      requestInfo?.signal.addEventListener("abort", abandoned, { once: true });
      return answer(call);
    });
    return server;
  };
  const handler = createMcpHandler(factory);

  const server = serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request: Request) => {
      requests.push({ method: request.method, headers: Object.fromEntries(request.headers), rpc: await rpcMethods(request) });
      if (new URL(request.url).pathname !== path) return new Response("not found", { status: 404 });
      return handler.fetch(request);
    },
  });
  await new Promise<void>((ready) => (server.listening ? ready() : server.once("listening", () => ready())));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    calls,
    listCursors,
    cancelled,
    setTools: (next) => (tools = next),
    answer: (next) => (answer = next),
    close: async () => {
      await handler.close();
      await new Promise<void>((done) => {
        server.close(() => done());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

const rpcMethods = async (request: Request): Promise<string[]> => {
  if (request.method !== "POST") return [];
  const body: unknown = await request.clone().json().catch(() => undefined);
  return (Array.isArray(body) ? body : [body]).flatMap((message) => (typeof message?.method === "string" ? [message.method] : []));
};

/** Waits until the signal is aborted or the time is up, whichever comes first: an upstream tool that takes its time. */
export const slowly = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), done()), { once: true });
  });
