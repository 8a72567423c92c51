import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp } from "../http/app";
import { agents } from "../resources/agents";
import { calls } from "../resources/calls";
import { mcp } from "../resources/mcp";

/** The execution function: agents, their visible tools, every guarded call, and each agent's MCP endpoint. */
export const executionApp = (getToolgate: () => Toolgate) => createApp(getToolgate).route("/", agents).route("/", calls).route("/", mcp);

export const handler = handle(executionApp(toolgate));
