import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp } from "../http/app";
import type { RequestLog } from "../log";
import { agents } from "../resources/agents";
import { answerTokens } from "../resources/answer-tokens";
import { callKeys } from "../resources/call-keys";
import { calls } from "../resources/calls";
import { mcp } from "../resources/mcp";
import { offers } from "../resources/offers";

/**
 * The execution function: agents, their visible tools, resources and prompts, every guarded call (reads and gets too), the answering tokens, each agent's MCP
 * endpoint, and the public keys of the tokens its calls carry to executors.
 */
export const executionApp = (getToolgate: () => Toolgate, logRequest?: RequestLog) =>
  createApp(getToolgate, logRequest).route("/", agents).route("/", offers).route("/", calls).route("/", answerTokens).route("/", mcp).route("/", callKeys);

export const handler = handle(executionApp(toolgate));
