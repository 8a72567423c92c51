import { handle } from "hono/aws-lambda";
import * as Role from "@toolgate/core/role/index";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { mountConsole } from "../console/mount";
import { createApp, readJson } from "../http/app";
import { principalName, requireAdmin } from "../http/auth";

const withNotice = ({ role, notice }: Role.RoleOutcome) => (notice ? { ...role, notice, message: Role.ALL_GROUPS_MESSAGE } : role);

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
    const outcome = await Role.create(toolgate.db, toolgate.catalog, await readJson(c), principalName(c.get("principal")), toolgate.now());
    return c.json(withNotice(outcome), 201, { ETag: `"${outcome.role.version}"` });
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
    const outcome = await Role.update(toolgate.db, toolgate.catalog, request);
    return c.json(withNotice(outcome), 200, { ETag: `"${outcome.role.version}"` });
  });

  return app;
}

export const app = rolesApp(toolgate);
export const handler = handle(app);
