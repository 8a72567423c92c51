import { handle } from "hono/aws-lambda";
import { z } from "zod";
import { loadView, visibleToolsJson } from "@toolgate/core/access/index";
import * as Agent from "@toolgate/core/agent/index";
import * as Call from "@toolgate/core/call/index";
import { approve, deny, guardedCall, reportResult } from "@toolgate/core/guard/index";
import * as Message from "@toolgate/core/message/index";
import { mergePolicy, setDisabled, setPolicy } from "@toolgate/core/policy/admin";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";
import { parseOr } from "@toolgate/core/validation";
import { createApp, readJson } from "../http/app";
import { principalName, requireAdmin, requireAdminOrSelf, requireSelf, requireSelfCached } from "../http/auth";
import type { Principal } from "../http/auth";

const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(Call.MAX_PAGE).default(20),
  cursor: z.string().min(1).max(2048).optional(),
});

/** The agent named in the path: the caller itself, or loaded for the admin. */
const agentFor = (toolgate: Toolgate, principal: Principal, id: string) =>
  principal.kind === "agent" ? principal.agent : Agent.get(toolgate.db, id);

export function executionApp(getToolgate: () => Toolgate) {
  const app = createApp(getToolgate);

  app.post("/agents", requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const { agent, token } = await Agent.create(toolgate.db, toolgate.tokens, await readJson(c), principalName(c.get("principal")), toolgate.now());
    return c.json({ agent: Agent.publicAgent(agent), token }, 201);
  });

  app.get("/agents/:id", requireAdminOrSelf, async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    return c.json(Agent.publicAgent(agent));
  });

  app.delete("/agents/:id", requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(Agent.publicAgent(await Agent.terminate(toolgate.db, c.req.param("id"), toolgate.now())));
  });

  app.post("/agents/:id/token", requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const { agent, token } = await Agent.reissueToken(toolgate.db, toolgate.tokens, c.req.param("id"));
    return c.json({ agent: Agent.publicAgent(agent), token }, 201);
  });

  app.get("/agents/:id/tools", requireAdminOrSelf, async (c) => {
    const toolgate = c.get("toolgate");
    const agent = await agentFor(toolgate, c.get("principal"), c.req.param("id"));
    const { access } = await loadView(toolgate, agent, "fresh");
    const head = JSON.stringify({ agentId: agent.id, roleId: access.role.id, toolGroups: access.groups });
    return c.body(`${head.slice(0, -1)},"tools":${visibleToolsJson(access)}}`, 200, { "content-type": "application/json" });
  });

  app.post("/agents/:id/calls", requireSelfCached, async (c) => {
    const principal = c.get("principal") as Extract<Principal, { kind: "agent" }>;
    const { status, body } = await guardedCall(c.get("toolgate").guard, principal.agent, await readJson(c, { depthJudgedByGuard: true }));
    return c.json(body, status);
  });

  app.post("/agents/:id/calls/:callId/result", requireSelf, async (c) => {
    const record = await reportResult(c.get("toolgate").guard, c.req.param("id"), c.req.param("callId"), await readJson(c), new Date());
    return c.json(record);
  });

  app.get("/agents/:id/messages", requireAdminOrSelf, async (c) => {
    const toolgate = c.get("toolgate");
    const agent = await agentFor(toolgate, c.get("principal"), c.req.param("id"));
    const query = parseOr(PageQuery, c.req.query(), "invalid_query", "The query string");
    return c.json(await Message.list(toolgate.db, agent.id, query.limit, query.cursor));
  });

  app.post("/calls/:callId/approve", requireAdmin, async (c) =>
    c.json(await approve(c.get("toolgate").guard, c.req.param("callId"), principalName(c.get("principal")), new Date())),
  );

  app.post("/calls/:callId/deny", requireAdmin, async (c) =>
    c.json(await deny(c.get("toolgate").guard, c.req.param("callId"), principalName(c.get("principal")), new Date())),
  );

  app.put("/tools/:name/policy", requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await setPolicy(toolgate.db, toolgate.catalog, c.req.param("name"), await readJson(c), toolgate.now()));
  });

  app.patch("/tools/:name/policy", requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    return c.json(await mergePolicy(toolgate.db, toolgate.catalog, c.req.param("name"), await readJson(c), toolgate.now()));
  });

  for (const [path, disabled] of [["/tools/:name/disable", true], ["/tools/:name/enable", false]] as const)
    app.post(path, requireAdmin, async (c) => {
      const toolgate = c.get("toolgate");
      return c.json(await setDisabled(toolgate.db, toolgate.catalog, c.req.param("name"), disabled, toolgate.now()));
    });

  app.get("/agents/:id/calls", requireAdminOrSelf, async (c) => {
    const toolgate = c.get("toolgate");
    const agent = await agentFor(toolgate, c.get("principal"), c.req.param("id"));
    const query = parseOr(PageQuery, c.req.query(), "invalid_query", "The query string");
    return c.json(await Call.history(toolgate.db, agent.id, query.limit, query.cursor));
  });

  app.get("/agents/:id/calls/:callId", requireAdminOrSelf, async (c) => {
    const toolgate = c.get("toolgate");
    const agent = await agentFor(toolgate, c.get("principal"), c.req.param("id"));
    return c.json(await Call.get(toolgate.db, agent.id, c.req.param("callId")));
  });

  return app;
}

export const app = executionApp(toolgate);
export const handler = handle(app);
