import { Hono } from "hono";
import * as Role from "@toolgate/core/role";
import type { Toolgate } from "@toolgate/core/toolgate";
import { loadTokenCounter } from "@toolgate/core/tool";
import { API } from "../routes";
import type { Env } from "../http/app";
import { principalName, requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json } from "../http/validate";

const R = API.roles.roles;

const withNotice = <R>(role: R, notice: Role.RoleOutcome["notice"]) => (notice ? { ...role, notice, message: Role.ALL_GROUPS_MESSAGE } : role);
const etag = (role: { version: number }) => ({ ETag: `"${role.version}"` });

/** Roles as the API shows them, each with the tokens its tools cost in an agent's context (toolTokens, and loadingTokens per mode). */
async function viewsWithTokens(toolgate: Toolgate, roles: Role.Role[]) {
  const [snapshot, count] = await Promise.all([toolgate.catalog.snapshot(), loadTokenCounter()]);
  return roles.map((role) => ({ ...Role.view(role, snapshot.manager), ...Role.roleTokens(role, snapshot, count) }));
}

export const roles = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    return c.json({ roles: await viewsWithTokens(toolgate, await Role.list(toolgate.db)) });
  })
  .on(method(R.create), path(R.create), requireAdmin, json(Role.RoleInput, Role.ROLE_ERRORS, "invalid_role", "The role"), async (c) => {
    const toolgate = c.get("toolgate");
    const outcome = await Role.create(toolgate.db, toolgate.catalog, c.req.valid("json"), principalName(c.get("principal")), toolgate.now(), toolgate.events);
    const [role] = await viewsWithTokens(toolgate, [outcome.role]);
    return c.json(withNotice(role!, outcome.notice), 201, etag(outcome.role));
  })
  .on(method(R.byName), path(R.byName), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const [role] = await viewsWithTokens(toolgate, [await Role.getByName(toolgate.db, c.req.param("name"))]);
    return c.json(role, 200, etag(role!));
  })
  .on(method(R.get), path(R.get), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const [role] = await viewsWithTokens(toolgate, [await Role.get(toolgate.db, c.req.param("id"))]);
    return c.json(role, 200, etag(role!));
  })
  .on(method(R.patch), path(R.patch), requireAdmin, json(Role.RolePatch, Role.ROLE_ERRORS, "invalid_role", "The role update"), async (c) => {
    const toolgate = c.get("toolgate");
    const request = { id: c.req.param("id"), patch: c.req.valid("json"), ifMatch: Role.parseIfMatch(c.req.header("if-match")), now: toolgate.now() };
    const outcome = await Role.update(toolgate.db, toolgate.catalog, request, toolgate.events);
    const [role] = await viewsWithTokens(toolgate, [outcome.role]);
    return c.json(withNotice(role!, outcome.notice), 200, etag(outcome.role));
  })
  .on(method(R.remove), path(R.remove), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    await Role.remove(toolgate.db, c.req.param("id"), toolgate.events);
    return c.body(null, 204);
  });
