import { EventEmitter, once } from "node:events";
import { createMcpHandler, inputRequired, Server } from "@modelcontextprotocol/server";
import type { ReadResourceResult, ServerContext } from "@modelcontextprotocol/server";
import { serveFetch } from "./http-server";

/** How the upstream answers resources/read: by default the resource's text; a test may make it misbehave. */
export type ReadAnswer = (uri: string, signal: AbortSignal) => ReadResourceResult | Promise<ReadResourceResult>;

/** What one resources/read, prompts/get or completion/complete reached the upstream with. */
export type UpstreamUse = { method: string; params: Record<string, unknown>; headers: Record<string, string> };

export type ResourcesUpstream = {
  url: string;
  /** Every read, get and completion, oldest first. */
  uses: UpstreamUse[];
  /** Makes resources/read answer otherwise (a huge answer, a hang). */
  answerReads(answer: ReadAnswer): void;
  /** Makes the HTTP endpoint answer every resources/read with this body (not MCP at all). */
  garbleReads(body: string | undefined): void;
  /** Tells every open subscriptions/listen that asked for the URI that it was updated. */
  updated(uri: string): void;
  /** How many subscriptions/listen streams naming the URI are open now. */
  listening(uri: string): number;
  /** Resolves once exactly `count` listens naming the URI are open. */
  untilListening(uri: string, count: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * A prompt and a resource whose server asks the client who signs first (MCP 2026-07-28's input_required, the request
 * `who` with a request state of its own), and answers once it is sent again with the answer and that state.
 */
export const SIGNING = { prompt: "sign", uri: "file:///docs/signed.md", requestState: "upstream-state-1" };

export const RESOURCES = [
  { uri: "file:///docs/readme.md", name: "readme", mimeType: "text/markdown", description: "The project's readme." },
  { uri: "file:///secrets/keys.txt", name: "keys", mimeType: "text/plain" },
  { uri: "data://logo", name: "logo", mimeType: "image/png" },
  { uri: SIGNING.uri, name: "signed", mimeType: "text/plain", description: "Asks who reads it first." },
];
export const TEMPLATES = [{ uriTemplate: "notes://{topic}/today", name: "note", description: "Today's note on a topic." }];
export const PROMPTS = [
  { name: "summarize", description: "Summarize a text.", arguments: [{ name: "text", required: true }, { name: "style" }] },
  { name: "greet", description: "Say hello." },
  { name: SIGNING.prompt, description: "Sign a text, asking who signs first.", arguments: [{ name: "text", required: true }] },
];

const textOf = (uri: string) => `contents of ${uri}`;

function defaultRead(uri: string): ReadResourceResult {
  if (uri === "data://logo") return { contents: [{ uri, mimeType: "image/png", blob: Buffer.from("png!").toString("base64") }] };
  if (RESOURCES.some((resource) => resource.uri === uri) || /^notes:\/\/[^/]+\/today$/.test(uri)) return { contents: [{ uri, mimeType: "text/plain", text: textOf(uri) }] };
  throw Object.assign(new Error(`Resource ${uri} not found`), { code: -32002 });
}

/** Who signs, when the request was sent again with the answer to `who` and the request state it was asked with. */
function signerOf(ctx: ServerContext): string | undefined {
  const answer = ctx.mcpReq.inputResponses?.who as { action?: string; content?: { name?: string } } | undefined;
  return ctx.mcpReq.requestState() === SIGNING.requestState && answer?.action === "accept" ? answer.content?.name : undefined;
}

const askWhoSigns = () =>
  inputRequired({
    inputRequests: { who: inputRequired.elicit({ message: "Who signs?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }) },
    requestState: SIGNING.requestState,
  });

/** What a request sent again carried besides its params: the client's answers and the request state. */
const answersOf = (ctx: ServerContext) => (ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses, requestState: ctx.mcpReq.requestState() } : {});

/**
 * A small MCP server (the v2 SDK's low-level Server over Streamable HTTP, stateless) offering one tool, resources, a
 * template, prompts with arguments and completions (SIGNING's asking the client first), and recording every read, get
 * and completion it receives (a request sent again with what it carried besides its params). It
 * offers subscriptions (2026-07-28 listens): `updated` tells the listens of a URI, `listening` counts them.
 */
export async function startResourcesUpstream(): Promise<ResourcesUpstream> {
  const uses: UpstreamUse[] = [];
  let read: ReadAnswer = defaultRead;
  let garbled: string | undefined;
  const factory = ({ requestInfo }: { requestInfo?: Request }) => {
    const headers = Object.fromEntries(requestInfo?.headers ?? []);
    const server = new Server({ name: "resources-upstream", version: "1.0.0" }, { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {} } });
    const record = (method: string, params: Record<string, unknown>) => uses.push({ method, params, headers });
    server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "echo", description: "Echo a text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }));
    server.setRequestHandler("tools/call", async (request) => ({ content: [{ type: "text", text: JSON.stringify(request.params.arguments) }] }));
    server.setRequestHandler("resources/list", async () => ({ resources: RESOURCES }));
    server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: TEMPLATES }));
    server.setRequestHandler("resources/read", async (request, ctx) => {
      record("resources/read", { ...request.params, ...answersOf(ctx) });
      if (request.params.uri !== SIGNING.uri) return read(request.params.uri, ctx.mcpReq.signal);
      const signer = signerOf(ctx);
      return signer ? { contents: [{ uri: SIGNING.uri, mimeType: "text/plain", text: `read by ${signer}` }] } : askWhoSigns();
    });
    server.setRequestHandler("prompts/list", async () => ({ prompts: PROMPTS }));
    server.setRequestHandler("prompts/get", async (request, ctx) => {
      record("prompts/get", { ...request.params, ...answersOf(ctx) });
      const args = request.params.arguments ?? {};
      if (request.params.name === SIGNING.prompt) {
        const signer = signerOf(ctx);
        return signer ? { messages: [{ role: "user" as const, content: { type: "text" as const, text: `${args.text} (signed by ${signer})` } }] } : askWhoSigns();
      }
      return { description: `prompt ${request.params.name}`, messages: [{ role: "user" as const, content: { type: "text" as const, text: `${request.params.name}: ${JSON.stringify(args)}` } }] };
    });
    server.setRequestHandler("completion/complete", async (request) => {
      record("completion/complete", request.params as Record<string, unknown>);
      const prefix = request.params.argument.value;
      return { completion: { values: ["alpha", "beta", "alps"].filter((value) => value.startsWith(prefix)) } };
    });
    return server;
  };
  const handler = createMcpHandler(factory);
  const listens = new Map<string, number>();
  const changes = new EventEmitter();
  const count = (uris: string[], by: number) => {
    for (const uri of uris) listens.set(uri, (listens.get(uri) ?? 0) + by);
    changes.emit("change");
  };
  const served = await serveFetch(async (request) => {
    const body = request.method === "POST" ? await request.clone().text() : "";
    if (garbled !== undefined && body.includes('"resources/read"')) return new Response(garbled, { status: 200, headers: { "content-type": "application/json" } });
    const uris = listenedUris(body);
    if (!uris) return handler.fetch(request);
    count(uris, 1);
    return whileOpen(await handler.fetch(request), request.signal, () => count(uris, -1));
  });
  return {
    url: `${served.url}/mcp`,
    uses,
    answerReads: (answer) => (read = answer),
    garbleReads: (body) => (garbled = body),
    updated: (uri) => handler.notify.resourceUpdated(uri),
    listening: (uri) => listens.get(uri) ?? 0,
    untilListening: async (uri, wanted) => {
      while ((listens.get(uri) ?? 0) !== wanted) await once(changes, "change");
    },
    close: async () => {
      await handler.close();
      await served.close();
    },
  };
}

/** The URIs a subscriptions/listen request's filter names; undefined for any other request. */
function listenedUris(body: string): string[] | undefined {
  if (!body.includes('"subscriptions/listen"')) return undefined;
  const message = JSON.parse(body) as { method?: string; params?: { notifications?: { resourceSubscriptions?: string[] } } };
  return message.method === "subscriptions/listen" ? (message.params?.notifications?.resourceSubscriptions ?? []) : undefined;
}

/** The response as it came, `ended` told once when its stream ends, however it does (the client leaving included). */
function whileOpen(response: Response, signal: AbortSignal, ended: () => void): Response {
  let open = true;
  const end = () => {
    if (open) (open = false), ended();
  };
  signal.addEventListener("abort", end, { once: true });
  if (!response.body) return end(), response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (read.done) return end(), controller.close();
      controller.enqueue(read.value);
    },
    cancel: (reason) => (end(), reader.cancel(reason)),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
