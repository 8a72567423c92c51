import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp } from "../http/app";
import type { RequestLog } from "../log";
import { groups } from "../resources/groups";
import { modules } from "../resources/modules";
import { policies } from "../resources/policies";
import { tools } from "../resources/tools";

/** The groups function: the catalog (groups and their tools' policies) and the modules that fill it. */
export const groupsApp = (getToolgate: () => Toolgate, logRequest?: RequestLog) => createApp(getToolgate, logRequest).route("/", groups).route("/", tools).route("/", modules).route("/", policies);

export const handler = handle(groupsApp(toolgate));
