import { defineModule, defineTool } from "@toolgate/module";
import * as z from "zod";
import type { AccessKeyPair } from "./secrets";
import { listen } from "./server";

/** The example module's name, which is also its group's id. */
export const EXAMPLE_MODULE = "example";

const wordCount = defineTool({
  name: "word_count",
  description: "Count the words, lines and characters of a text. Returns { words, lines, characters } as JSON.",
  parameters: z.strictObject({ text: z.string().min(1).max(100_000).describe("The text to count.") }),
  execute: ({ text }) => ({
    words: text.trim() === "" ? 0 : text.trim().split(/\s+/u).length,
    lines: text.split(/\r\n|\r|\n/).length,
    characters: [...text].length,
  }),
});

const currentTime = defineTool({
  name: "current_time",
  description: "Tell the current date and time in a time zone. Returns { timeZone, iso, local } as JSON.",
  parameters: z.strictObject({
    timeZone: z.string().max(64).optional().describe('An IANA time zone, e.g. "Europe/Paris" or "America/New_York"; UTC when left out.'),
  }),
  execute: ({ timeZone = "UTC" }) => {
    let local: string;
    try {
      local = new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }).format(new Date());
    } catch {
      throw new Error(`"${timeZone}" is not a time zone; use an IANA name such as "Europe/Paris".`);
    }
    return { timeZone, iso: new Date().toISOString(), local };
  },
});

export type ExampleModule = { url: string; version: number; stop(): Promise<void> };

/**
 * A small module written with the module SDK, as a deploy step would run one: served on a free local port (running
 * only the calls toolgate signed), announced to toolgate with a module.loaded event through the EventBridge
 * endpoint, signed with the local key pair. Each start announces a newer version, so a restart on kept data points
 * the group at the new port.
 */
export async function startExampleModule(toolgateUrl: string, credentials: AccessKeyPair): Promise<ExampleModule> {
  const server = await listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${server.port}/tools`;
  const stop = server.close;
  const example = defineModule({
    id: EXAMPLE_MODULE,
    description: "An example module: count the words of a text and tell the time in any time zone.",
    tools: [wordCount, currentTime],
    toolgate: { url: toolgateUrl },
    url,
  });
  server.serve(example.fetch);
  const version = Date.now();
  const bus = { endpoint: `${toolgateUrl}/eventbridge`, region: "us-east-1", credentials };
  try {
    await example.announce({ bus, version });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, version, stop };
}
