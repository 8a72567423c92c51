import { handle } from "hono/aws-lambda";
import * as Role from "@toolgate/core/role/index";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { mountConsole } from "../console/mount";
import { createApp, readJson } from "../http/app";
import { principalName, requireAdmin } from "../http/auth";

export function rolesApp(getToolgate: () => Toolgate) {
  const app = createApp(getToolgate);
  mountConsole(app);
  app.use("/roles", requireAdmin);
  app.use("/roles/*", requireAdmin);

  app.get("/roles", async (c) => {
    const { db, catalog } = c.get("toolgate");
    const [roles, manager] = await Promise.all([Role.list(db), catalog.current()]);
    return c.json({ roles: roles.map((role) => Role.view(role, manager)) });
  });

  app.post("/roles", async (c) => {
    const toolgate = c.get("toolgate");
    const role = await Role.create(toolgate.db, toolgate.catalog, await readJson(c), principalName(c.get("principal")), toolgate.now());
    return c.json(role, 201, { ETag: `"${role.version}"` });
  });

  app.get("/roles/by-name/:name", async (c) => {
    const { db, catalog } = c.get("toolgate");
    const role = Role.view(await Role.getByName(db, c.req.param("name")), await catalog.current());
    return c.json(role, 200, { ETag: `"${role.version}"` });
  });

  app.get("/roles/:id", async (c) => {
    const { db, catalog } = c.get("toolgate");
    const role = Role.view(await Role.get(db, c.req.param("id")), await catalog.current());
    return c.json(role, 200, { ETag: `"${role.version}"` });
  });

  app.patch("/roles/:id", async (c) => {
    const toolgate = c.get("toolgate");
    const ifMatch = Role.parseIfMatch(c.req.header("if-match"));
    const request = { id: c.req.param("id"), input: await readJson(c), ifMatch, now: toolgate.now() };
    const { role, notice } = await Role.update(toolgate.db, toolgate.catalog, request);
    const body = notice
      ? { ...role, notice, message: "The role names no tool groups, so its agents get every tool group, including ones registered later." }
      : role;
    return c.json(body, 200, { ETag: `"${role.version}"` });
  });

  return app;
}

export const app = rolesApp(toolgate);
export const handler = handle(app);
