import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { mountConsole } from "../console/mount";
import { createApp } from "../http/app";
import type { RequestLog } from "../log";
import { docs } from "../resources/docs";
import { home } from "../resources/home";
import { roles } from "../resources/roles";

/** The roles function: roles, the console where an operator edits them, and the root that points to it. */
export const rolesApp = (getToolgate: () => Toolgate, logRequest?: RequestLog) => mountConsole(createApp(getToolgate, logRequest)).route("/", roles).route("/", home).route("/", docs);

export const handler = handle(rolesApp(toolgate));
