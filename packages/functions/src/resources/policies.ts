import { Hono } from "hono";
import * as z from "zod";
import * as Policy from "@toolgate/core/policy";
import { parseIfMatch } from "@toolgate/core/role";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json } from "../http/validate";

const R = API.groups.policies;

const etag = (policy: { version: number }) => ({ ETag: `"${policy.version}"` });

function policyId(id: string) {
  const parsed = Policy.PolicyId.safeParse(id);
  if (!parsed.success) throw Policy.policyError("invalid_policy_id", `A policy id is 1-64 letters, digits, '_', '.' or '-'; got ${JSON.stringify(id)}.`);
  return parsed.data;
}

const Draft = z.intersection(Policy.PolicyInput, z.object({ id: Policy.PolicyId.optional() }));

export const policies = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, async (c) => c.json(await Policy.listPolicies(c.get("toolgate").catalog)))
  .on(method(R.validate), path(R.validate), requireAdmin, json(Draft, Policy.POLICY_ERRORS, "invalid_policy", "The policy"), async (c) => {
    const draft = c.req.valid("json");
    const snapshot = await c.get("toolgate").catalog.snapshot();
    const checked = await Policy.checkPolicy({ db: c.get("toolgate").db, manager: snapshot.manager }, draft.id ?? "draft", draft);
    return c.json({ valid: checked.problems.length === 0, ...(checked.read ? { effect: checked.read.effect } : {}), cedar: checked.cedar, problems: checked.problems });
  })
  .on(method(R.simulate), path(R.simulate), requireAdmin, json(Policy.SimulationInput, Policy.POLICY_ERRORS, "invalid_simulation", "The simulation"), async (c) => {
    const toolgate = c.get("toolgate");
    const snapshot = await toolgate.catalog.snapshot();
    return c.json(await Policy.simulate(toolgate.db, snapshot, c.req.valid("json"), new Date(toolgate.now()), toolgate.config.callRetentionDays));
  })
  .on(method(R.get), path(R.get), requireAdmin, async (c) => {
    const policy = await Policy.getPolicy(c.get("toolgate").catalog, policyId(c.req.param("id")));
    return c.json(policy, 200, etag(policy));
  })
  .on(method(R.put), path(R.put), requireAdmin, json(Policy.PolicyInput, Policy.POLICY_ERRORS, "invalid_policy", "The policy"), async (c) => {
    const toolgate = c.get("toolgate");
    const put = {
      id: policyId(c.req.param("id")),
      input: c.req.valid("json"),
      ifMatch: parseIfMatch(c.req.header("if-match"), "policy"),
      createOnly: c.req.header("if-none-match")?.trim() === "*",
      now: toolgate.now(),
    };
    const { created, policy } = await Policy.putPolicy(toolgate.db, toolgate.catalog, toolgate.events, put);
    return c.json(policy, created ? 201 : 200, etag(policy));
  })
  .on(method(R.remove), path(R.remove), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    await Policy.deletePolicy(toolgate.db, toolgate.catalog, toolgate.events, policyId(c.req.param("id")), parseIfMatch(c.req.header("if-match"), "policy"), toolgate.now());
    return c.body(null, 204);
  });
