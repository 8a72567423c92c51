import { Hono } from "hono";
import * as Policy from "@toolgate/core/policy";
import * as Tool from "@toolgate/core/tool";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";

const R = API.groups.tools;

/** The tool a route names, and whose settings of it (`?scope=`, everyone's by default). */
const targetOf = (c: { req: { param(name: "name"): string; valid(target: "query"): { scope?: string } } }): Policy.OverrideTarget => ({
  toolName: c.req.param("name"),
  scope: c.req.valid("query").scope ?? "system",
});

export const tools = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, query(Tool.ToolQuery), async (c) => {
    const [snapshot, count] = await Promise.all([c.get("toolgate").catalog.snapshot(), Tool.loadTokenCounter()]);
    return c.json({ tools: Tool.list(snapshot, c.req.valid("query"), count) });
  })
  .on(method(R.stats), path(R.stats), requireAdmin, async (c) => {
    const [snapshot, count] = await Promise.all([c.get("toolgate").catalog.snapshot(), Tool.loadTokenCounter()]);
    return c.json(Tool.stats(snapshot, count));
  })
  .on(method(R.get), path(R.get), requireAdmin, query(Policy.OverrideQuery), async (c) => {
    const snapshot = await c.get("toolgate").catalog.snapshot();
    const view = Policy.policyView(snapshot, c.req.param("name"), c.req.valid("query").scope);
    return c.json({ ...view, definition: snapshot.manager.getGroup(view.group)!.tools.find((tool) => tool.function.name === view.name)! });
  })
  .on(method(R.putPolicy), path(R.putPolicy), requireAdmin, query(Policy.OverrideQuery), json(Policy.ToolPolicy, Policy.POLICY_ERRORS, "invalid_policy", "The policy"), async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await Policy.setPolicy(toolgate.db, toolgate.catalog, targetOf(c), c.req.valid("json"), toolgate.now()));
  })
  .on(
    method(R.patchPolicy),
    path(R.patchPolicy),
    requireAdmin,
    query(Policy.OverrideQuery),
    json(Policy.PolicyPatch, Policy.POLICY_ERRORS, "invalid_policy", "The policy change"),
    async (c) => {
      const toolgate = c.get("toolgate");
      return c.json(await Policy.mergePolicy(toolgate.db, toolgate.catalog, targetOf(c), c.req.valid("json"), toolgate.now()));
    },
  )
  .on(method(R.disable), path(R.disable), requireAdmin, query(Policy.OverrideQuery), async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await Policy.setDisabled(toolgate.db, toolgate.catalog, targetOf(c), true, toolgate.now()));
  })
  .on(method(R.enable), path(R.enable), requireAdmin, query(Policy.OverrideQuery), async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await Policy.setDisabled(toolgate.db, toolgate.catalog, targetOf(c), false, toolgate.now()));
  });
