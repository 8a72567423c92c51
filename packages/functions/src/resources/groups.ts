import { Hono } from "hono";
import * as Group from "@toolgate/core/group";
import { loadTokenCounter } from "@toolgate/core/tool";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";

const R = API.groups.groups;

/** A group as the API shows it in full, with what its tools cost in an agent's context (tokens, toolTokens). */
const fullView = async (group: Group.Group) => ({ ...Group.groupView(group), ...Group.groupTokens(group, await loadTokenCounter()) });

export const groups = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, query(Group.GroupListQuery), async (c) => {
    const [snapshot, count] = await Promise.all([c.get("toolgate").catalog.snapshot(), loadTokenCounter()]);
    return c.json({ groups: Group.listWithTokens(snapshot, count, c.req.valid("query").scope) });
  })
  .on(method(R.get), path(R.get), requireAdmin, async (c) => {
    return c.json(await fullView(Group.get(await c.get("toolgate").catalog.snapshot(), c.req.param("id"))));
  })
  .on(method(R.put), path(R.put), requireAdmin, json(Group.GroupInput, Group.GROUP_ERRORS, "invalid_group_def", "The group definition"), async (c) => {
    const toolgate = c.get("toolgate");
    const id = Group.parseGroupId(c.req.param("id"));
    const definition = await Group.withTools(c.req.valid("json"), toolgate.secrets, id);
    const outcome = await Group.registerGroup(toolgate.db, toolgate.catalog, id, definition, { source: "api", now: toolgate.now() });
    const body = await fullView(outcome.group);
    if (outcome.warning) return c.json({ ...body, warning: outcome.warning, message: `The group "${id}" already existed and has been replaced.` }, 200);
    return c.json(body, 201);
  })
  .on(method(R.bindExecutor), path(R.bindExecutor), requireAdmin, json(Group.Executor, Group.GROUP_ERRORS, "invalid_executor", "The executor"), async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await fullView(await Group.bindExecutor(toolgate.db, toolgate.catalog, c.req.param("id"), c.req.valid("json"), toolgate.now())));
  })
  .on(method(R.refresh), path(R.refresh), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const { group, added, removed } = await Group.refreshGroup(toolgate.db, toolgate.catalog, c.req.param("id"), toolgate.secrets, toolgate.now());
    return c.json({ ...(await fullView(group)), added, removed });
  })
  .on(method(R.remove), path(R.remove), requireAdmin, async (c) => {
    const { db, catalog } = c.get("toolgate");
    await Group.unregisterGroup(db, catalog, c.req.param("id"));
    return c.body(null, 204);
  });
