import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { CallToolResult, ServerContext, Tool } from "@modelcontextprotocol/server";

/**
 * An upstream MCP server with the tools the MCP conformance suite's server scenarios call, each answering as the
 * scenario's own description asks (`conformance list`, `--scenario <name>`). Written for toolgate's conformance run from
 * those descriptions; the run proves it by passing the suite directly before measuring toolgate in front of it.
 * Stateful (a session per client), since a tool that asks its client for input or sampling during a call needs the
 * client's answer to reach the same server.
 */

/** A 1×1 red PNG. */
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** A WAV of eight silent 8-bit mono samples at 8 kHz. */
export function silentWav(samples = 8): string {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write("data", 36);
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]).toString("base64");
}

const NO_ARGUMENTS = { type: "object", properties: {} };
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const failure = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }], isError: true });

const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

const tool = (name: string, description: string, inputSchema: Record<string, unknown> = NO_ARGUMENTS): Tool =>
  ({ name, description, inputSchema }) as Tool;

export const CONFORMANCE_TOOLS: Tool[] = [
  tool("test_simple_text", "Answers with one text block."),
  tool("test_image_content", "Answers with a PNG image."),
  tool("test_audio_content", "Answers with a WAV recording."),
  tool("test_embedded_resource", "Answers with an embedded text resource."),
  tool("test_multiple_content_types", "Answers with text, an image and an embedded JSON resource."),
  tool("test_tool_with_logging", "Logs three messages while it runs."),
  tool("test_error_handling", "Always fails, as an isError result."),
  tool("test_tool_with_progress", "Reports its progress when the call carries a progress token."),
  tool("test_sampling", "Asks the client's model to answer a prompt.", { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] }),
  tool("test_elicitation", "Asks the user for a username and an email.", { type: "object", properties: { message: { type: "string" } }, required: ["message"] }),
  tool("test_elicitation_sep1034_defaults", "Asks the user for values of every primitive type, each with a default."),
  tool("test_elicitation_sep1330_enums", "Asks the user to choose, in every enum form."),
  tool("json_schema_2020_12_tool", "Takes arguments described in JSON Schema 2020-12.", SCHEMA_2020_12),
];

const DEFAULTS_FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", default: true },
  },
};

const ENUMS_FORM = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
    untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

export type Handler = (args: Record<string, unknown>, ctx: ServerContext, server: Server) => Promise<CallToolResult>;
/** A tool a test adds to the conformance ones. */
export type ExtraTool = { tool: Tool; handler: Handler };

/** Pauses the scenarios ask for between notifications, so a client sees them arrive during the call, not at its end. */
const PAUSE_MS = 50;

/**
 * The user's answer to a form, as the client's elicitation gives it; an error result when the client cannot ask.
 * Requests to the client go through `ctx.mcpReq.send`, which relates them to the call (on its response stream), as
 * the specification says they should; `server.elicitInput` would send them on the session's own stream, about no call.
 */
async function elicited(server: Server, ctx: ServerContext, message: string, requestedSchema: Record<string, unknown>, prefix: string): Promise<CallToolResult> {
  if (!server.getClientCapabilities()?.elicitation) return failure("The client does not support elicitation.");
  const answer = (await ctx.mcpReq.send({ method: "elicitation/create", params: { message, requestedSchema } } as never)) as { action: string; content?: unknown };
  return text(`${prefix}action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

const CONTACT_FORM = {
  type: "object",
  properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
  required: ["username", "email"],
};

const HANDLERS: Record<string, Handler> = {
  test_simple_text: async () => text("This is a simple text response for testing."),
  test_image_content: async () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
  test_audio_content: async () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  test_embedded_resource: async () => ({
    content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
  }),
  test_multiple_content_types: async () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
    ],
  }),
  test_tool_with_logging: async (_args, ctx) => {
    await ctx.mcpReq.log("info", "Tool execution started");
    await sleep(PAUSE_MS);
    await ctx.mcpReq.log("info", "Tool processing data");
    await sleep(PAUSE_MS);
    await ctx.mcpReq.log("info", "Tool execution completed");
    return text("Logged three messages.");
  },
  test_error_handling: async () => failure("This tool intentionally returns an error for testing"),
  test_tool_with_progress: async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await sleep(PAUSE_MS);
      if (progressToken !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
    }
    return text("Reported progress 0, 50 and 100 of 100.");
  },
  test_sampling: async (args, ctx, server) => {
    if (!server.getClientCapabilities()?.sampling) return failure("The client does not support sampling.");
    const params = { messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }], maxTokens: 100 };
    const answer = (await ctx.mcpReq.send({ method: "sampling/createMessage", params } as never)) as { content: { type: string; text?: string } | Array<{ type: string; text?: string }> };
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return text(`LLM response: ${content && content.type === "text" ? content.text : JSON.stringify(content)}`);
  },
  test_elicitation: async (args, ctx, server) => elicited(server, ctx, String(args.message), CONTACT_FORM, "User response: "),
  test_elicitation_sep1034_defaults: async (_args, ctx, server) =>
    elicited(server, ctx, "Please review and update the form fields with defaults", DEFAULTS_FORM, "Elicitation completed: "),
  test_elicitation_sep1330_enums: async (_args, ctx, server) =>
    elicited(server, ctx, "Please select options from the enum fields", ENUMS_FORM, "Elicitation completed: "),
  json_schema_2020_12_tool: async (args) => text(`Received ${JSON.stringify(args)}`),
};

function conformanceServer(extra: ExtraTool[]): Server {
  const server = new Server({ name: "conformance-upstream", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [...CONFORMANCE_TOOLS, ...extra.map((added) => added.tool)] }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const handler = HANDLERS[request.params.name] ?? extra.find((added) => added.tool.name === request.params.name)?.handler;
    if (!handler) return failure(`Unknown tool: ${request.params.name}`);
    return handler(request.params.arguments ?? {}, ctx, server);
  });
  server.setRequestHandler("logging/setLevel", async () => ({}));
  return server;
}

export type ConformanceUpstream = { url: string; close(): Promise<void> };

/** The upstream on 127.0.0.1 and a free port, serving MCP at /mcp, a session per client that initializes. */
export async function startConformanceUpstream(extra: ExtraTool[] = []): Promise<ConformanceUpstream> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  async function handle(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    const sessionId = request.headers.get("mcp-session-id");
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request);
    if (sessionId) return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await conformanceServer(extra).connect(transport);
    return transport.handleRequest(request);
  }

  const server = serve({ hostname: "127.0.0.1", port: 0, fetch: handle });
  await new Promise<void>((ready) => (server.listening ? ready() : server.once("listening", () => ready())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await new Promise<void>((done) => {
        server.close(() => done());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
