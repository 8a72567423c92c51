import { Hono } from "hono";
import * as Role from "@toolgate/core/role";
import { API } from "../routes";
import type { Env } from "../http/app";
import { principalName, requireAdmin } from "../http/auth";
import { method, path } from "../http/route";
import { json } from "../http/validate";

const R = API.roles.roles;

const withNotice = ({ role, notice }: Role.RoleOutcome) => (notice ? { ...role, notice, message: Role.ALL_GROUPS_MESSAGE } : role);
const etag = (role: { version: number }) => ({ ETag: `"${role.version}"` });

export const roles = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, async (c) => {
    const { db, catalog } = c.get("toolgate");
    const [all, manager] = await Promise.all([Role.list(db), catalog.current()]);
    return c.json({ roles: all.map((role) => Role.view(role, manager)) });
  })
  .on(method(R.create), path(R.create), requireAdmin, json(Role.RoleInput, "invalid_role", "The role"), async (c) => {
    const toolgate = c.get("toolgate");
    const outcome = await Role.create(toolgate.db, toolgate.catalog, c.req.valid("json"), principalName(c.get("principal")), toolgate.now());
    return c.json(withNotice(outcome), 201, etag(outcome.role));
  })
  .on(method(R.byName), path(R.byName), requireAdmin, async (c) => {
    const { db, catalog } = c.get("toolgate");
    const role = Role.view(await Role.getByName(db, c.req.param("name")), await catalog.current());
    return c.json(role, 200, etag(role));
  })
  .on(method(R.get), path(R.get), requireAdmin, async (c) => {
    const { db, catalog } = c.get("toolgate");
    const role = Role.view(await Role.get(db, c.req.param("id")), await catalog.current());
    return c.json(role, 200, etag(role));
  })
  .on(method(R.patch), path(R.patch), requireAdmin, json(Role.RolePatch, "invalid_role", "The role update"), async (c) => {
    const toolgate = c.get("toolgate");
    const request = { id: c.req.param("id"), patch: c.req.valid("json"), ifMatch: Role.parseIfMatch(c.req.header("if-match")), now: toolgate.now() };
    const outcome = await Role.update(toolgate.db, toolgate.catalog, request);
    return c.json(withNotice(outcome), 200, etag(outcome.role));
  });
