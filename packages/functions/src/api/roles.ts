import { handle } from "hono/aws-lambda";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { mountConsole } from "../console/mount";
import { createApp } from "../http/app";
import { roles } from "../resources/roles";

/** The roles function: roles, and the console where an operator edits them. */
export const rolesApp = (getToolgate: () => Toolgate) => mountConsole(createApp(getToolgate)).route("/", roles);

export const handler = handle(rolesApp(toolgate));
