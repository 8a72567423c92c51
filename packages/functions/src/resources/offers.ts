import { Hono } from "hono";
import { loadView } from "@toolgate/core/access";
import { CALL_ERRORS } from "@toolgate/core/call";
import { guardedOffer } from "@toolgate/core/guard";
import { listedOffers, PromptInput, ReadQuery } from "@toolgate/core/offer";
import type { OfferCall } from "@toolgate/core/offer";
import type { Toolgate } from "@toolgate/core/toolgate";
import type { Agent } from "@toolgate/core/agent";
import { API } from "../routes";
import type { Env } from "../http/app";
import { requireAdminOrSelf, requireSelfCached } from "../http/auth";
import { method, path } from "../http/route";
import { json, query } from "../http/validate";
import { agentFor } from "./agents";

const R = API.execution.offers;

/** A read or a get through the guard, answered with the server's answer whole and the recorded call's id. */
async function used(toolgate: Toolgate, agent: Agent, offer: OfferCall) {
  const { body } = await guardedOffer(toolgate.guard, agent, offer);
  const { _meta: _ignored, ...answer } = body.result.mcpAnswer!.result;
  return { callId: body.callId, ...answer };
}

/** What an agent's groups' servers offer besides tools: listed from the catalog, read and got through the guard (as over /mcp). */
export const offers = new Hono<Env>()
  .on(method(R.resources), path(R.resources), requireAdminOrSelf, async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { access } = await loadView(c.get("toolgate"), agent, "fresh");
    const { resources, resourceTemplates } = listedOffers(access);
    return c.json({ agentId: agent.id, resources, resourceTemplates });
  })
  .on(method(R.read), path(R.read), requireSelfCached, query(ReadQuery), async (c) => {
    const answer = await used(c.get("toolgate"), c.get("agent"), { kind: "resource", uri: c.req.valid("query").uri });
    c.set("callId", answer.callId);
    return c.json(answer);
  })
  .on(method(R.prompts), path(R.prompts), requireAdminOrSelf, async (c) => {
    const agent = await agentFor(c.get("toolgate"), c.get("principal"), c.req.param("id"));
    const { access } = await loadView(c.get("toolgate"), agent, "fresh");
    return c.json({ agentId: agent.id, prompts: listedOffers(access).prompts });
  })
  .on(method(R.getPrompt), path(R.getPrompt), requireSelfCached, json(PromptInput, CALL_ERRORS, "invalid_request", "The prompt's arguments"), async (c) => {
    const answer = await used(c.get("toolgate"), c.get("agent"), { kind: "prompt", name: c.req.param("name"), arguments: c.req.valid("json").arguments });
    c.set("callId", answer.callId);
    return c.json(answer);
  });
