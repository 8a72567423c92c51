import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp } from "../http/app";
import { agents } from "../resources/agents";
import { calls } from "../resources/calls";

/** The execution function: agents, their visible tools, and every guarded call. */
export const executionApp = (getToolgate: () => Toolgate) => createApp(getToolgate).route("/", agents).route("/", calls);

export const handler = handle(executionApp(toolgate));
