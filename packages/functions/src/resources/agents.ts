import { Hono } from "hono";
import { layeredTools, loadView, visibleTokens, visibleToolsJson } from "@toolgate/core/access";
import { loadTokenCounter, ToolsQuery } from "@toolgate/core/tool";
import { SearchQuery, searchVisible } from "@toolgate/core/search";
import * as Agent from "@toolgate/core/agent";
import { PageQuery } from "@toolgate/core/call";
import * as Message from "@toolgate/core/message";
import { API } from "../routes";
import type { Env } from "../http/app";
import { principalName, requireAdmin, requireAdminOrSelf } from "../http/auth";
import type { Principal } from "../http/auth";
import type { Toolgate } from "@toolgate/core/toolgate";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";

const R = API.execution.agents;

/** The agent named in the path: the caller itself, or read for the admin. */
export const agentFor = (toolgate: Toolgate, principal: Principal, id: string) =>
  principal.kind === "agent" ? principal.agent : Agent.get(toolgate.db, id);

export const agents = new Hono<Env>()
  .on(method(R.list), path(R.list), requireAdmin, query(Agent.AgentListQuery), async (c) => {
    const { roleId, status, limit, cursor } = c.req.valid("query");
    const page = await Agent.list(c.get("toolgate").db, { roleId, status }, limit, cursor);
    return c.json({ ...page, agents: page.agents.map(Agent.publicAgent) });
  })
  .on(method(R.create), path(R.create), requireAdmin, json(Agent.AgentInput, Agent.AGENT_ERRORS, "invalid_agent", "The agent"), async (c) => {
    const toolgate = c.get("toolgate");
    const { agent, token } = await Agent.create(toolgate.db, toolgate.tokens, c.req.valid("json"), principalName(c.get("principal")), toolgate.now(), toolgate.events);
    return c.json({ agent: Agent.publicAgent(agent), token }, 201);
  })
  .on(method(R.get), path(R.get), requireAdminOrSelf, async (c) => c.json(Agent.publicAgent(await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id")))))
  .on(method(R.terminate), path(R.terminate), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const { agent, cancelledCalls } = await Agent.terminate(toolgate.db, c.req.param("id"), toolgate.now(), toolgate.config.clientResultTimeoutMs, toolgate.events);
    return c.json({ ...Agent.publicAgent(agent), cancelledCalls });
  })
  .on(method(R.token), path(R.token), requireAdmin, async (c) => {
    const toolgate = c.get("toolgate");
    const { agent, token } = await Agent.reissueToken(toolgate.db, toolgate.tokens, c.req.param("id"), toolgate.now());
    return c.json({ agent: Agent.publicAgent(agent), token }, 201);
  })
  .on(method(R.tools), path(R.tools), requireAdminOrSelf, query(ToolsQuery), async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { format } = c.req.valid("query");
    const [{ access }, count] = await Promise.all([loadView(c.get("toolgate"), agent, "fresh"), loadTokenCounter()]);
    const { toolLoading } = access.role;
    const head = JSON.stringify({ agentId: agent.id, roleId: access.role.id, toolGroups: access.groups, toolLoading, format, tokens: visibleTokens(access, count) });
    return c.body(`${head.slice(0, -1)},"tools":${visibleToolsJson(access, format)}}`, 200, { "content-type": "application/json" });
  })
  .on(method(R.searchTools), path(R.searchTools), requireAdminOrSelf, query(SearchQuery), async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { access } = await loadView(c.get("toolgate"), agent, "fresh");
    const search = c.req.valid("query");
    return c.json({ agentId: agent.id, query: search.q, tools: searchVisible(access, search) });
  })
  .on(method(R.toolLayers), path(R.toolLayers), requireAdminOrSelf, async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { access } = await loadView(c.get("toolgate"), agent, "fresh");
    return c.json({ agentId: agent.id, scopes: access.scopes, tools: layeredTools(access) });
  })
  .on(method(R.messages), path(R.messages), requireAdminOrSelf, query(PageQuery), async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { limit, cursor } = c.req.valid("query");
    return c.json(await Message.list(c.get("toolgate").db, agent.id, limit, cursor));
  });
