import { Hono } from "hono";
import * as Module from "@toolgate/core/module";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdmin } from "../http/auth";
import { method, path } from "../http/route";

const R = API.groups.modules;

export const modules = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, async (c) => c.json({ modules: await Module.list(c.get("toolgate").db) }))
  .on(method(R.get), path(R.get), requireAdmin, async (c) => c.json(await Module.get(c.get("toolgate").db, c.req.param("name"))));
