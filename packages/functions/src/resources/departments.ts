import { Hono } from "hono";
import { listDepartments } from "@toolgate/core/department";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdmin } from "../http/auth";
import { method, path } from "../http/route";

const R = API.groups.departments;

export const departments = new Hono<Env>().on(method(R.list), path(R.list), requireAdmin, async (c) => {
  const toolgate = c.get("toolgate");
  return c.json({ departments: await listDepartments(toolgate.db, await toolgate.catalog.snapshot()) });
});
