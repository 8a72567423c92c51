import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import { LongText } from "./fields";
import type { BuiltinGroup } from "./group";

export const compressContext = {
  name: "compress_context",
  description:
    "Free up room in your context window: your older messages are replaced by the summary you write, and only the most recent messages are kept verbatim. Returns the context size before and after. Use it when get_context_status shows the context nearly full; anything left out of the summary is lost.",
  parameters: z.strictObject({
    summary: LongText.describe(
      "Your summary of the conversation so far that replaces the older messages: the goal, decisions made, facts and ids you still need, work done and what remains.",
    ),
    keepRecentMessages: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(10)
      .describe("How many of the most recent messages to keep verbatim after the summary."),
  }),
} satisfies ToolDescription;

export const getContextStatus = {
  name: "get_context_status",
  description:
    "Report how full your conversation context is. Returns { usedTokens, maxTokens, messageCount }. Check it during long tasks to decide whether to call compress_context.",
  parameters: z.strictObject({}),
  /** A status the agent polls while it works: identical calls in a row are expected, not a loop. */
  policy: { repeatLimit: 0 },
} satisfies ToolDescription;

export const contextGroup: BuiltinGroup<"context"> = {
  id: "context",
  description: "Inspect and shrink the agent's own conversation context.",
  executor: { type: "client" },
  tools: [compressContext, getContextStatus].map(describeTool),
};
