import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp } from "../http/app";
import type { RequestLog } from "../log";
import { groups } from "../resources/groups";
import { departments } from "../resources/departments";
import { modules } from "../resources/modules";
import { policies } from "../resources/policies";
import { tools } from "../resources/tools";

/** The groups function: the catalog (groups and their tools' policies), the modules that fill it and the departments its groups reach. */
export const groupsApp = (getToolgate: () => Toolgate, logRequest?: RequestLog) => createApp(getToolgate, logRequest).route("/", groups).route("/", tools).route("/", modules).route("/", departments).route("/", policies);

export const handler = handle(groupsApp(toolgate));
