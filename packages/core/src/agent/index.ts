import { badRequest, conflict, notFound } from "../error";
import type { Db } from "../dynamo/client";
import { getAgent, insertAgent, rotateAgentToken, terminateAgent } from "../dynamo/agents";
import { getRole } from "../dynamo/roles";
import { createId } from "../id";
import { ROOT_ROLE_ID } from "../role/schema";
import { parseOr } from "../validation";
import { Agent, AgentInput, ROOT_AGENT_ID } from "./schema";
import type { TokenSigner } from "./token";

export { Agent, ROOT_AGENT_ID, publicAgent } from "./schema";
export type { PublicAgent } from "./schema";

export type IssuedAgent = { agent: Agent; token: string };

export async function create(db: Db, tokens: TokenSigner, input: unknown, createdBy: string, now: string): Promise<IssuedAgent> {
  const parsed = parseOr(AgentInput, input, "invalid_agent", "The agent");
  const role = await getRole(db, parsed.roleId);
  if (!role) throw badRequest("role_not_found", `There is no role with id "${parsed.roleId}" to bind the agent to.`);
  const id = createId("agt");
  const agent: Agent = {
    id,
    roleId: role.id,
    name: parsed.name ?? `${role.name}-${id.slice(-6).toLowerCase()}`,
    status: "active",
    department: parsed.department ?? null,
    level: parsed.level ?? null,
    createdBy,
    createdAt: now,
    tokenVersion: 1,
  };
  await insertAgent(db, agent);
  return { agent, token: await tokens.sign({ agentId: id, tokenVersion: agent.tokenVersion }) };
}

export async function get(db: Db, id: string): Promise<Agent> {
  const agent = await getAgent(db, id);
  if (!agent) throw notFound("agent_not_found", `There is no agent "${id}".`);
  return agent;
}

export async function terminate(db: Db, id: string, now: string): Promise<Agent> {
  if (id === ROOT_AGENT_ID) throw conflict("root_agent_fixed", "The root agent cannot be terminated.");
  const terminated = await terminateAgent(db, id, now);
  if (terminated) return terminated;
  const existing = await get(db, id);
  throw conflict("agent_terminated", `The agent "${existing.id}" is already terminated.`);
}

/** Issues a fresh token and revokes every earlier one. */
export async function reissueToken(db: Db, tokens: TokenSigner, id: string): Promise<IssuedAgent> {
  const agent = await rotateAgentToken(db, id);
  if (!agent) {
    await get(db, id);
    throw conflict("agent_terminated", `The agent "${id}" is terminated; a terminated agent gets no token.`);
  }
  return { agent, token: await tokens.sign({ agentId: id, tokenVersion: agent.tokenVersion }) };
}

export async function ensureRoot(db: Db, now: string): Promise<void> {
  if (await getAgent(db, ROOT_AGENT_ID)) return;
  await insertAgent(db, {
    id: ROOT_AGENT_ID,
    roleId: ROOT_ROLE_ID,
    name: "root",
    status: "active",
    department: null,
    level: null,
    createdBy: "system",
    createdAt: now,
    tokenVersion: 1,
  });
}
