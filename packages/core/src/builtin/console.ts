import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import { ASK_USER, AskUserArguments } from "../question/schema";
import type { BuiltinGroup } from "./group";

export const consolePrint = {
  name: "console_print",
  description:
    "Print a message to the operator's console, where the people running the system can see it. Returns a confirmation. Use it for progress reports and warnings meant for people rather than for other agents.",
  parameters: z.strictObject({
    message: z.string().min(1).max(10_000).describe("Text to print to the operator's console."),
    level: z.enum(["debug", "info", "warn", "error"]).default("info").describe("Severity of the message."),
  }),
} satisfies ToolDescription;

/** Answered by a person through the questions queue (question/), never by the group's executor. */
export const askUser = {
  name: ASK_USER,
  description:
    "Ask a person a question and wait for the answer. Give options when the answer is one of a few (set multiple to allow several); without options the person answers in their own words. " +
    'Returns { "action": "accept", "answer": ... } with the chosen option(s) or the words, or { "action": "decline" } when the person will not answer. ' +
    "Ask when you need a decision or knowledge only a person has; never ask for passwords or other secrets.",
  parameters: AskUserArguments,
} satisfies ToolDescription;

export const consoleGroup: BuiltinGroup<"console"> = {
  id: "console",
  description: "Talk to people: print messages to the operator's console, and ask a person a question.",
  executor: { type: "client" },
  tools: [consolePrint, askUser].map(describeTool),
};
