import { handle } from "hono/aws-lambda";
import { notFound } from "@toolgate/core/error";
import { groupView } from "@toolgate/core/group/views";
import { bindExecutor, parseExecutor, parseGroupId, parseGroupInput, registerGroup, unregisterGroup } from "@toolgate/core/group/register";
import { policyView } from "@toolgate/core/policy/admin";
import * as Module from "@toolgate/core/module/index";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { createApp, readJson } from "../http/app";
import { requireAdmin } from "../http/auth";

export function groupsApp(getToolgate: () => Toolgate) {
  const app = createApp(getToolgate);
  for (const path of ["/groups", "/groups/*", "/tools/:name", "/modules", "/modules/*"]) app.use(path, requireAdmin);

  app.get("/groups", async (c) => {
    const manager = await c.get("toolgate").catalog.current();
    return c.json({ groups: manager.listGroups() });
  });

  app.get("/groups/:id", async (c) => {
    const manager = await c.get("toolgate").catalog.current();
    const group = manager.getGroup(c.req.param("id"));
    if (!group) throw notFound("group_not_found", `There is no tool group "${c.req.param("id")}".`);
    return c.json(groupView(group));
  });

  app.put("/groups/:id", async (c) => {
    const { db, catalog } = c.get("toolgate");
    const id = parseGroupId(c.req.param("id"));
    const input = parseGroupInput(await readJson(c));
    const outcome = await registerGroup(db, catalog, id, input, { source: "api", now: c.get("toolgate").now() });
    const body = groupView(outcome.group);
    if (outcome.warning)
      return c.json(
        { ...body, warning: outcome.warning, message: `The group "${id}" already existed and has been replaced.` },
        200,
      );
    return c.json(body, 201);
  });

  app.put("/groups/:id/executor", async (c) => {
    const toolgate = c.get("toolgate");
    const executor = parseExecutor(await readJson(c));
    return c.json(groupView(await bindExecutor(toolgate.db, toolgate.catalog, c.req.param("id"), executor, toolgate.now())));
  });

  app.delete("/groups/:id", async (c) => {
    const { db, catalog } = c.get("toolgate");
    await unregisterGroup(db, catalog, c.req.param("id"));
    return c.body(null, 204);
  });

  app.get("/tools/:name", async (c) => {
    const snapshot = await c.get("toolgate").catalog.snapshot();
    const view = policyView(snapshot, c.req.param("name"));
    return c.json({ ...view, definition: snapshot.manager.findTool(view.name)!.definition });
  });

  app.get("/modules", async (c) => c.json({ modules: await Module.list(c.get("toolgate").db) }));

  app.get("/modules/:name", async (c) => c.json(await Module.get(c.get("toolgate").db, c.req.param("name"))));

  return app;
}

export const app = groupsApp(toolgate);
export const handler = handle(app);
