/**
 * What the MCP conformance suite's server scenarios ask a server to answer, as data both reference upstreams serve
 * (the v2 SDK's, `conformance-upstream.ts`, and the v1 SDK's, `conformance-upstream-v1.ts`). Written from the
 * scenarios' own descriptions (`conformance server --scenario <name>` prints them).
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

export type JsonObject = Record<string, unknown>;
export type ToolDefinition = { name: string; description: string; inputSchema: JsonObject };
export type ContentBlock = JsonObject & { type: string };
export type ToolResult = { content: ContentBlock[]; isError?: boolean };

export const text = (value: string): ToolResult => ({ content: [{ type: "text", text: value }] });
export const failure = (value: string): ToolResult => ({ content: [{ type: "text", text: value }], isError: true });

const NO_ARGUMENTS = { type: "object", properties: {} };
const tool = (name: string, description: string, inputSchema: JsonObject = NO_ARGUMENTS): ToolDefinition => ({ name, description, inputSchema });

/** Arguments described with JSON Schema 2020-12's vocabulary: `$defs` with an `$anchor`, composition, conditions. */
const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

/** The tools of the 2025-era scenarios: content of every kind, logging, progress, and questions asked during a call. */
export const CALL_TOOLS: ToolDefinition[] = [
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
  tool("test_reconnection", "Closes its response stream mid-call and answers once the client has reconnected."),
];

export const SIMPLE_TEXT = "This is a simple text response for testing.";
export const EMBEDDED_RESOURCE = { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." };
export const MIXED_CONTENT: ContentBlock[] = [
  { type: "text", text: "Multiple content types test:" },
  { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
  { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
];
export const LOG_MESSAGES = ["Tool execution started", "Tool processing data", "Tool execution completed"];
export const PROGRESS_STEPS = [0, 50, 100];
export const ERROR_TEXT = "This tool intentionally returns an error for testing";
/** Pauses the scenarios ask for between notifications, so a client sees them arrive during the call, not at its end. */
export const PAUSE_MS = 50;

const CONTACT_FORM = {
  type: "object",
  properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
  required: ["username", "email"],
};

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

/** The questions the elicitation tools ask, by tool: message, form, and the prefix of the text they answer with. */
export const QUESTIONS: Record<string, { message?: string; form: JsonObject; prefix: string }> = {
  test_elicitation: { form: CONTACT_FORM, prefix: "User response: " },
  test_elicitation_sep1034_defaults: { message: "Please review and update the form fields with defaults", form: DEFAULTS_FORM, prefix: "Elicitation completed: " },
  test_elicitation_sep1330_enums: { message: "Please select options from the enum fields", form: ENUMS_FORM, prefix: "Elicitation completed: " },
};

export const answered = (prefix: string, answer: { action: string; content?: unknown }) =>
  text(`${prefix}action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);

export const samplingRequest = (prompt: string) => ({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 });

export const sampled = (answer: { content: { type: string; text?: string } | Array<{ type: string; text?: string }> }) => {
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return text(`LLM response: ${content && content.type === "text" ? content.text : JSON.stringify(content)}`);
};

/** Resources: two static ones, one a client may subscribe to, and a template with a parameter. */
const STATIC_TEXT = { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" };
const STATIC_BINARY = { uri: "test://static-binary", name: "static-binary", description: "A static binary resource (a PNG)", mimeType: "image/png" };
const WATCHED = { uri: "test://watched-resource", name: "watched-resource", description: "A resource a client may subscribe to", mimeType: "text/plain" };
export const RESOURCES = [STATIC_TEXT, STATIC_BINARY, WATCHED];
export const DATA_TEMPLATE = {
  uriTemplate: "test://template/{id}/data",
  name: "template-data",
  description: "Data for an id, substituted into the URI",
  mimeType: "application/json",
};
const TEMPLATE_URI = /^test:\/\/template\/([^/]+)\/data$/;

export type ResourceContents = { uri: string; mimeType: string; text?: string; blob?: string };

/** The contents of a resource by its URI, or undefined when no resource has that URI. */
export function readResource(uri: string): ResourceContents | undefined {
  if (uri === STATIC_TEXT.uri) return { uri, mimeType: "text/plain", text: "This is the content of the static text resource." };
  if (uri === STATIC_BINARY.uri) return { uri, mimeType: "image/png", blob: RED_PIXEL_PNG };
  if (uri === WATCHED.uri) return { uri, mimeType: "text/plain", text: "The watched resource's current content." };
  const id = TEMPLATE_URI.exec(uri)?.[1];
  if (id !== undefined) return { uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) };
  return undefined;
}

/** Prompts: a simple one, one with arguments, one that embeds a resource, one with an image. */
export const PROMPTS = [
  { name: "test_simple_prompt", description: "A prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];

export type PromptMessage = { role: "user" | "assistant"; content: ContentBlock };

/** A prompt's messages with its arguments, or undefined when no prompt has that name. */
export function promptMessages(name: string, args: Record<string, string>): PromptMessage[] | undefined {
  const user = (content: ContentBlock): PromptMessage => ({ role: "user", content });
  switch (name) {
    case "test_simple_prompt":
      return [user({ type: "text", text: "This is a simple prompt for testing." })];
    case "test_prompt_with_arguments":
      return [user({ type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` })];
    case "test_prompt_with_embedded_resource":
      return [
        user({ type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } }),
        user({ type: "text", text: "Please process the embedded resource above." }),
      ];
    case "test_prompt_with_image":
      return [user({ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }), user({ type: "text", text: "Please analyze the image above." })];
    default:
      return undefined;
  }
}

const COMPLETION_WORDS = ["paris", "park", "party", "hello", "help", "world", "wonder"];

/** Completion of a prompt's or a template's argument: the known words that start with what was typed. */
export function complete(value: string): { values: string[]; total: number; hasMore: boolean } {
  const values = COMPLETION_WORDS.filter((word) => word.startsWith(value.toLowerCase()));
  return { values, total: values.length, hasMore: false };
}

/** The hostnames a localhost server accepts in `Host` and `Origin` (DNS-rebinding protection). */
const LOCALHOST_NAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

const hostnameOf = (value: string) => {
  try {
    return new URL(value.includes("://") ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
};

/** Whether a request's Host and Origin name this machine (a missing Origin is fine: it is not a browser's). */
export function isLocalRequest(host: string | null | undefined, origin: string | null | undefined): boolean {
  const hostname = host ? hostnameOf(host) : undefined;
  if (!hostname || !LOCALHOST_NAMES.includes(hostname)) return false;
  if (!origin) return true;
  const originHost = hostnameOf(origin);
  return originHost !== undefined && LOCALHOST_NAMES.includes(originHost);
}

type StoredEvent = { id: string; streamId: string; message: unknown };

/**
 * An in-memory event store for Streamable HTTP resumability (what `Last-Event-ID` replays), the shape both SDKs'
 * transports take: a stream closed mid-call is resumed from the last event the client saw.
 */
export function memoryEventStore() {
  const events: StoredEvent[] = [];
  let next = 0;
  return {
    async storeEvent(streamId: string, message: unknown): Promise<string> {
      const id = `${streamId}::${++next}`;
      events.push({ id, streamId, message });
      return id;
    },
    async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
      return events.find((event) => event.id === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: never) => Promise<void> }): Promise<string> {
      const index = events.findIndex((event) => event.id === lastEventId);
      if (index < 0) return "";
      const { streamId } = events[index]!;
      for (const event of events.slice(index + 1)) if (event.streamId === streamId) await send(event.id, event.message as never);
      return streamId;
    },
  };
}
