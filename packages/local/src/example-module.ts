import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { MODULE_EVENT_SOURCE, ModuleEventType } from "@toolgate/core/module/events";

/** The example module's name, which is also its group's id. */
export const EXAMPLE_MODULE = "example";

const MAX_BODY_BYTES = 256 * 1024;

const TOOLS = [
  {
    type: "function",
    function: {
      name: "word_count",
      description: "Count the words, lines and characters of a text. Returns { words, lines, characters } as JSON.",
      parameters: {
        type: "object",
        properties: { text: { type: "string", minLength: 1, maxLength: 100_000, description: "The text to count." } },
        required: ["text"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "current_time",
      description: "Tell the current date and time in a time zone. Returns { timeZone, iso, local } as JSON.",
      parameters: {
        type: "object",
        properties: {
          timeZone: { type: "string", maxLength: 64, description: 'An IANA time zone, e.g. "Europe/Paris" or "America/New_York"; UTC when left out.' },
        },
        additionalProperties: false,
      },
    },
  },
] as const;

type ToolAnswer = { content: string; type: "text" | "json" | "error" };

const json = (value: unknown): ToolAnswer => ({ content: JSON.stringify(value), type: "json" });

function wordCount(text: string): ToolAnswer {
  const words = text.trim() === "" ? 0 : text.trim().split(/\s+/u).length;
  return json({ words, lines: text.split(/\r\n|\r|\n/).length, characters: [...text].length });
}

function currentTime(timeZone = "UTC"): ToolAnswer {
  try {
    const local = new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }).format(new Date());
    return json({ timeZone, iso: new Date().toISOString(), local });
  } catch {
    return { content: `"${timeZone}" is not a time zone; use an IANA name such as "Europe/Paris".`, type: "error" };
  }
}

/** The module's tools, run on the arguments toolgate has already checked against their schemas. */
function runTool(tool: string, args: Record<string, unknown>): ToolAnswer {
  if (tool === "word_count") return wordCount(String(args.text ?? ""));
  if (tool === "current_time") return currentTime(typeof args.timeZone === "string" ? args.timeZone : undefined);
  return { content: `The example module has no tool "${tool}".`, type: "error" };
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) {
    body += chunk;
    if (body.length > MAX_BODY_BYTES) throw new Error("too large");
  }
  return body;
}

async function answer(request: IncomingMessage, response: ServerResponse) {
  const send = (status: number, value: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (request.method !== "POST") return send(405, { content: "POST a call to this executor.", type: "error" });
  try {
    const call = JSON.parse(await readBody(request)) as { tool?: unknown; arguments?: unknown };
    const args = call.arguments !== null && typeof call.arguments === "object" ? (call.arguments as Record<string, unknown>) : {};
    send(200, runTool(String(call.tool), args));
  } catch {
    send(400, { content: "The call was not JSON of the form { tool, arguments }.", type: "error" });
  }
}

export type ExampleModule = { url: string; version: number; stop(): Promise<void> };

/**
 * A small module, as a deploy step would run one: its own http executor on a free local port, announced to
 * toolgate with a module.loaded event through the EventBridge endpoint. Each start announces a newer version,
 * so a restart on kept data points the group at the executor's new port.
 */
export async function startExampleModule(toolgateUrl: string): Promise<ExampleModule> {
  const server = createServer((request, response) => void answer(request, response));
  await new Promise<void>((ready, fail) => server.once("error", fail).listen(0, "127.0.0.1", () => ready()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools`;
  const stop = () => new Promise<void>((done) => server.close(() => done()));
  const version = Date.now();
  const events = new EventBridgeClient({ endpoint: `${toolgateUrl}/eventbridge`, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    const sent = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: MODULE_EVENT_SOURCE,
            DetailType: ModuleEventType.Loaded,
            Detail: JSON.stringify({
              module: EXAMPLE_MODULE,
              version,
              description: "An example module: count the words of a text and tell the time in any time zone.",
              tools: TOOLS,
              executor: { type: "http", url },
            }),
          },
        ],
      }),
    );
    if (sent.FailedEntryCount) throw new Error(`the endpoint refused the module.loaded event: ${sent.Entries?.[0]?.ErrorMessage ?? "no reason given"}`);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    events.destroy();
  }
  return { url, version, stop };
}
