import { setTimeout as sleep } from "node:timers/promises";
import { inputRequired, MissingRequiredClientCapabilityError } from "@modelcontextprotocol/server";
import type { CallToolResult, InputRequests, InputRequiredResult, RequestStateCodec, Server, ServerContext, ServerNotifier, Tool } from "@modelcontextprotocol/server";
import {
  answered as plainAnswered,
  CALL_TOOLS,
  EMBEDDED_RESOURCE,
  ERROR_TEXT,
  failure as plainFailure,
  LOG_MESSAGES,
  MIXED_CONTENT,
  PAUSE_MS,
  PROGRESS_STEPS,
  QUESTIONS,
  RED_PIXEL_PNG,
  sampled as plainSampled,
  samplingRequest,
  silentWav,
  SIMPLE_TEXT,
  text as plainText,
} from "./conformance-content";
import type { JsonObject, ToolDefinition } from "./conformance-content";

const text = (value: string) => plainText(value) as CallToolResult;
const failure = (value: string) => plainFailure(value) as CallToolResult;
const answered = (...args: Parameters<typeof plainAnswered>) => plainAnswered(...args) as CallToolResult;
const sampled = (...args: Parameters<typeof plainSampled>) => plainSampled(...args) as CallToolResult;

/** The v2 SDK's tools of the conformance upstream (`conformance-upstream.ts`), for both eras it serves. */

export type Handler = (args: Record<string, unknown>, ctx: ServerContext, server: Server) => Promise<CallToolResult | InputRequiredResult>;
/** A tool a test adds to the conformance ones. */
export type ExtraTool = { tool: Tool; handler: Handler };
/** What a tool needs beyond its call: the handler's change notifier and the sealer of its request state. */
export type ToolEnvironment = { notify: ServerNotifier; state: RequestStateCodec<JsonObject> };

const NAME_FORM = (property: string) => ({ type: "object" as const, properties: { [property]: { type: "string" as const } }, required: [property] });
const noArguments = (name: string, description: string): ToolDefinition => ({ name, description, inputSchema: { type: "object", properties: {} } });

/** The 2026-07-28 scenarios' tools: multi-round-trip questions (`input_required`), a capability probe, list changes. */
const MODERN_TOOLS: ToolDefinition[] = [
  noArguments("test_input_required_result_elicitation", "Asks the user's name, then greets them."),
  noArguments("test_input_required_result_sampling", "Asks the client's model the capital of France."),
  noArguments("test_input_required_result_list_roots", "Asks the client for its roots."),
  noArguments("test_input_required_result_request_state", "Asks for a confirmation and checks its own state when it comes back."),
  noArguments("test_input_required_result_multiple_inputs", "Asks a question, a model and the roots at once."),
  noArguments("test_input_required_result_multi_round", "Asks two questions, one round each."),
  noArguments("test_input_required_result_tampered_state", "Asks a question with a sealed state, refusing a state that was altered."),
  noArguments("test_input_required_result_capabilities", "Asks only what the client declared it can answer."),
  noArguments("test_missing_capability", "Needs the client's sampling, refusing a client that did not declare it."),
  noArguments("test_streaming_elicitation", "Asks the user's name on 2026-07-28, as server-stateless's response-stream probe does."),
  noArguments("test_logging_tool", "Logs a message during the call, which only a request naming a log level receives (server-stateless's probe)."),
  noArguments("test_trigger_tool_change", "Announces that the tool list changed."),
  noArguments("test_trigger_prompt_change", "Announces that the prompt list changed."),
];

export const CONFORMANCE_TOOLS = [...CALL_TOOLS, ...MODERN_TOOLS] as Tool[];

/**
 * Asks the client during a call: a 2025-era client on the call's own response stream (`ctx.mcpReq.send` relates the
 * request to the call), a 2026-07-28 one with an `input_required` answer it fulfils and sends again.
 */
async function askDuringCall(server: Server, ctx: ServerContext, name: string, args: Record<string, unknown>): Promise<CallToolResult | InputRequiredResult> {
  const { message, form, prefix } = QUESTIONS[name]!;
  const params = { message: message ?? String(args.message), requestedSchema: form as never };
  if (ctx.mcpReq.envelope) {
    const answer = ctx.mcpReq.inputResponses?.question as { action: string; content?: unknown } | undefined;
    return answer ? answered(prefix, answer) : inputRequired({ inputRequests: { question: inputRequired.elicit(params) } });
  }
  if (!server.getClientCapabilities()?.elicitation) return failure("The client does not support elicitation.");
  return answered(prefix, (await ctx.mcpReq.send({ method: "elicitation/create", params })) as { action: string; content?: unknown });
}

/** Asks the client's model, the same two ways as a question. */
async function sampleDuringCall(server: Server, ctx: ServerContext, prompt: string): Promise<CallToolResult | InputRequiredResult> {
  if (ctx.mcpReq.envelope) {
    const answer = ctx.mcpReq.inputResponses?.completion;
    return answer ? sampled(answer as never) : inputRequired({ inputRequests: { completion: inputRequired.createMessage(samplingRequest(prompt) as never) } });
  }
  if (!server.getClientCapabilities()?.sampling) return failure("The client does not support sampling.");
  return sampled((await ctx.mcpReq.send({ method: "sampling/createMessage", params: samplingRequest(prompt) })) as never);
}

const accepted = (ctx: ServerContext, key: string) => ctx.mcpReq.inputResponses?.[key] as { action?: string; content?: JsonObject } | undefined;
const sampledText = (ctx: ServerContext, key: string) => {
  const answer = ctx.mcpReq.inputResponses?.[key] as { content?: { type: string; text?: string } } | undefined;
  return answer?.content?.type === "text" ? answer.content.text : undefined;
};
const rootsOf = (ctx: ServerContext, key: string) => (ctx.mcpReq.inputResponses?.[key] as { roots?: Array<{ uri: string }> } | undefined)?.roots;

const askName = inputRequired.elicit({ message: "What is your name?", requestedSchema: NAME_FORM("name") });
const askCapital = inputRequired.createMessage({ ...samplingRequest("What is the capital of France?"), messages: samplingRequest("What is the capital of France?").messages as never });
const askGreeting = inputRequired.createMessage({ messages: samplingRequest("Generate a greeting").messages as never, maxTokens: 50 });

type ModernHandler = (ctx: ServerContext, environment: ToolEnvironment) => Promise<CallToolResult | InputRequiredResult>;

const MODERN_HANDLERS: Record<string, ModernHandler> = {
  test_input_required_result_elicitation: async (ctx) => {
    const answer = accepted(ctx, "user_name");
    if (!answer) return inputRequired({ inputRequests: { user_name: askName } });
    return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
  },
  test_input_required_result_sampling: async (ctx) => {
    const answer = sampledText(ctx, "capital_question");
    if (answer === undefined) return inputRequired({ inputRequests: { capital_question: askCapital } });
    return text(`The model answered: ${answer}`);
  },
  test_input_required_result_list_roots: async (ctx) => {
    const roots = rootsOf(ctx, "client_roots");
    if (!roots) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`The client's roots: ${roots.map((root) => root.uri).join(", ") || "none"}`);
  },
  test_input_required_result_request_state: async (ctx, { state }) => {
    const confirmation = accepted(ctx, "confirm");
    const echoed = ctx.mcpReq.requestState<JsonObject>();
    if (!confirmation || echoed?.asked !== "confirm") {
      const confirm = inputRequired.elicit({ message: "Please confirm", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
      return inputRequired({ inputRequests: { confirm }, requestState: await state.mint({ asked: "confirm" }) });
    }
    return text(`state-ok: confirmed ${JSON.stringify(confirmation.content ?? {})}`);
  },
  test_input_required_result_multiple_inputs: async (ctx, { state }) => {
    const echoed = ctx.mcpReq.requestState<JsonObject>();
    const [name, greeting, roots] = [accepted(ctx, "user_name"), sampledText(ctx, "greeting"), rootsOf(ctx, "client_roots")];
    if (echoed?.asked !== "all" || !name || greeting === undefined || !roots) {
      const inputRequests: InputRequests = { user_name: askName, greeting: askGreeting, client_roots: inputRequired.listRoots() };
      return inputRequired({ inputRequests, requestState: await state.mint({ asked: "all" }) });
    }
    return text(`Hello ${String(name.content?.name)}: ${greeting} (roots: ${roots.map((root) => root.uri).join(", ")})`);
  },
  test_input_required_result_multi_round: async (ctx, { state }) => {
    const echoed = ctx.mcpReq.requestState<JsonObject>();
    const step1 = accepted(ctx, "step1");
    const step2 = accepted(ctx, "step2");
    if (echoed?.round === 2 && step2) return text(`Done: ${String(echoed.name)} likes ${String(step2.content?.color)}`);
    if (echoed?.round === 1 && step1) {
      const askColor = inputRequired.elicit({ message: "Step 2: What is your favorite color?", requestedSchema: NAME_FORM("color") });
      return inputRequired({ inputRequests: { step2: askColor }, requestState: await state.mint({ round: 2, name: step1.content?.name ?? null }) });
    }
    const askFirst = inputRequired.elicit({ message: "Step 1: What is your name?", requestedSchema: NAME_FORM("name") });
    return inputRequired({ inputRequests: { step1: askFirst }, requestState: await state.mint({ round: 1 }) });
  },
  test_input_required_result_tampered_state: async (ctx, { state }) => {
    const answer = accepted(ctx, "user_name");
    if (!answer || ctx.mcpReq.requestState<JsonObject>()?.asked !== "name") {
      return inputRequired({ inputRequests: { user_name: askName }, requestState: await state.mint({ asked: "name" }) });
    }
    return text(`Hello, ${String(answer.content?.name ?? "stranger")}! The state was intact.`);
  },
  test_input_required_result_capabilities: async (ctx) => {
    const declared = ctx.mcpReq.envelope?.["io.modelcontextprotocol/clientCapabilities" as never] as JsonObject | undefined;
    if (ctx.mcpReq.inputResponses && Object.keys(ctx.mcpReq.inputResponses).length > 0) return text(`Answered: ${Object.keys(ctx.mcpReq.inputResponses).join(", ")}`);
    const inputRequests: InputRequests = {};
    if (declared?.elicitation) inputRequests.user_name = askName;
    if (declared?.sampling) inputRequests.capital_question = askCapital;
    if (declared?.roots) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return text("The client declared nothing to ask with.");
    return inputRequired({ inputRequests });
  },
  test_missing_capability: async (ctx) => {
    const declared = ctx.mcpReq.envelope?.["io.modelcontextprotocol/clientCapabilities" as never] as JsonObject | undefined;
    if (!declared?.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
    return text("The client declared sampling.");
  },
  test_streaming_elicitation: async (ctx) => {
    const answer = accepted(ctx, "user_name");
    if (!answer) return inputRequired({ inputRequests: { user_name: askName } });
    return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
  },
  test_logging_tool: async (ctx) => {
    await ctx.mcpReq.log("info", "A log message for a request that names a log level.");
    return text("Logged one message.");
  },
  test_trigger_tool_change: async (_ctx, { notify }) => {
    notify.toolsChanged();
    return text("Announced a tool list change.");
  },
  test_trigger_prompt_change: async (_ctx, { notify }) => {
    notify.promptsChanged();
    return text("Announced a prompt list change.");
  },
};

const CALL_HANDLERS: Record<string, Handler> = {
  test_simple_text: async () => text(SIMPLE_TEXT),
  test_image_content: async () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
  test_audio_content: async () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  test_embedded_resource: async () => ({ content: [{ type: "resource", resource: EMBEDDED_RESOURCE }] }),
  test_multiple_content_types: async () => ({ content: MIXED_CONTENT }) as CallToolResult,
  test_tool_with_logging: async (_args, ctx) => {
    for (const [index, message] of LOG_MESSAGES.entries()) {
      if (index > 0) await sleep(PAUSE_MS);
      await ctx.mcpReq.log("info", message);
    }
    return text("Logged three messages.");
  },
  test_error_handling: async () => failure(ERROR_TEXT),
  test_tool_with_progress: async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of PROGRESS_STEPS) {
      if (progress > 0) await sleep(PAUSE_MS);
      if (progressToken !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
    }
    return text("Reported progress 0, 50 and 100 of 100.");
  },
  test_sampling: async (args, ctx, server) => sampleDuringCall(server, ctx, String(args.prompt)),
  test_elicitation: async (args, ctx, server) => askDuringCall(server, ctx, "test_elicitation", args),
  test_elicitation_sep1034_defaults: async (args, ctx, server) => askDuringCall(server, ctx, "test_elicitation_sep1034_defaults", args),
  test_elicitation_sep1330_enums: async (args, ctx, server) => askDuringCall(server, ctx, "test_elicitation_sep1330_enums", args),
  json_schema_2020_12_tool: async (args) => text(`Received ${JSON.stringify(args)}`),
  test_reconnection: async (_args, ctx) => {
    await sleep(PAUSE_MS);
    ctx.http?.closeSSE?.();
    await sleep(4 * PAUSE_MS);
    return text("Answered after the client reconnected.");
  },
};

/** Serves tools/list and tools/call on the server, with a test's extra tools beside the conformance ones. */
export function serveTools(server: Server, environment: ToolEnvironment, extra: ExtraTool[]): void {
  server.setRequestHandler("tools/list", async () => ({ tools: [...CONFORMANCE_TOOLS, ...extra.map((added) => added.tool)] }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    const modern = MODERN_HANDLERS[name];
    if (modern) return modern(ctx, environment);
    const handler = CALL_HANDLERS[name] ?? extra.find((added) => added.tool.name === name)?.handler;
    if (!handler) return failure(`Unknown tool: ${name}`);
    return handler(request.params.arguments ?? {}, ctx, server);
  });
}
