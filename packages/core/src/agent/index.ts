import { createHash, timingSafeEqual } from "node:crypto";
import { AGAIN, uncontended, untilSettled } from "../contention";
import { invalidCursor, ToolgateError } from "../error";
import type { Db } from "../dynamo/client";
import { getAgent, insertAgent, listAgents, readAgent, replaceAgent } from "../dynamo/agents";
import type { AgentFilter } from "../dynamo/agents";
import { markBackfilled } from "../dynamo/backfill";
import { getRole } from "../dynamo/roles";
import { agentSpawned, agentTerminated } from "../events/index";
import { noEvents } from "../events/publisher";
import type { EventPublisher } from "../events/publisher";
import { createId } from "../id";
import { ROOT_ROLE_ID } from "../role/schema";
import type { Role } from "../role/schema";
import { isWithin } from "../policy/facts/path";
import type { AgentCache } from "./cache";
import { Agent, ROOT_AGENT_ID } from "./schema";
import { cancelWaitingCalls } from "../call/index";
import { AGENT_ERRORS, agentError, tokenRevoked } from "./errors";
import type { AgentInput } from "./schema";
import type { TokenSigner } from "./token";
import * as AnswerTokens from "../answer-token/index";
import type { AnswerToken } from "../answer-token/schema";

export { Agent, AgentInput, AgentListQuery, ROOT_AGENT_ID, publicAgent } from "./schema";
export type { PublicAgent } from "./schema";
export { AgentCache } from "./cache";
export { AGENT_ERRORS, agentError } from "./errors";
export { TokenSigner } from "./token";

export type IssuedAgent = { agent: Agent; token: string };

const noRoleToBind = (roleId: string) => agentError("role_not_found", `There is no role with id "${roleId}" to bind the agent to.`);

/** An agent's own workspace root, which must lie inside its role's (when the role has one). */
function narrowedRoot(role: Role, root: string | undefined): string | null {
  if (root === undefined) return null;
  if (role.workspaceRoot !== null && !isWithin(role.workspaceRoot, root))
    throw agentError("workspace_root_outside_role", `The agent's workspace root "${root}" must lie inside its role's workspace root "${role.workspaceRoot}".`, {
      workspaceRoot: role.workspaceRoot,
    });
  return root;
}

/** Creates an agent and announces it (agent.spawned) once stored; pass noEvents to announce it yourself, e.g. with its task. */
export async function create(db: Db, tokens: TokenSigner, parsed: AgentInput, createdBy: string, now: string, events: EventPublisher = noEvents): Promise<IssuedAgent> {
  const role = await getRole(db, parsed.roleId);
  if (!role) throw noRoleToBind(parsed.roleId);
  const id = createId("agt");
  const agent: Agent = {
    id,
    roleId: role.id,
    name: parsed.name ?? `${role.name}-${id.slice(-6).toLowerCase()}`,
    status: "active",
    department: parsed.department ?? null,
    level: parsed.level ?? null,
    workspaceRoot: narrowedRoot(role, parsed.workspaceRoot),
    createdBy,
    createdAt: now,
    tokenVersion: 1,
    tokenExpiresAt: tokens.agentTokenExpiry(now),
  };
  if ((await uncontended(db.contentionDeadlineMs, () => insertAgent(db, agent))) === "role_not_found") throw noRoleToBind(role.id);
  const [token] = await Promise.all([tokens.sign({ agentId: id, tokenVersion: agent.tokenVersion, expiresAt: agent.tokenExpiresAt! }), events.publish(agentSpawned(agent))]);
  return { agent, token };
}

const agentNotFound = (id: string) => agentError("agent_not_found", `There is no agent "${id}".`);

export async function get(db: Db, id: string): Promise<Agent> {
  const agent = await getAgent(db, id);
  if (!agent) throw agentNotFound(id);
  return agent;
}

const terminatedAlready = (id: string, what: string) => agentError("agent_terminated", `The agent "${id}" is terminated${what}.`);

/** Changes an active agent (and the guard's copy of its token state) from what was read, reading again only if it moved meanwhile. */
async function changeActive(db: Db, id: string, change: (agent: Agent) => Agent, ifTerminated: string): Promise<Agent> {
  let current = await readAgent(db, id);
  return untilSettled(db.contentionDeadlineMs, async () => {
    if (!current) throw agentNotFound(id);
    if (current.agent.status !== "active") throw terminatedAlready(id, ifTerminated);
    const replaced = await replaceAgent(db, current, change(current.agent));
    if (replaced.kind === "ok") return replaced.agent;
    if (replaced.kind === "moved") current = replaced.current;
    return AGAIN;
  });
}

export type Termination = { agent: Agent; cancelledCalls: number };

const isTerminatedAlready = (error: unknown) => error instanceof ToolgateError && error.code === "agent_terminated";

/**
 * Terminates an agent: its token is refused from then on, and the calls it left waiting (for an approval, or for its
 * runtime's result) end as cancelled. A termination that stopped before ending them all (the store failed) is finished
 * by the next request to terminate the agent, which is still refused as already done.
 */
export async function terminate(db: Db, id: string, now: string, resultWaitMs: number, events: EventPublisher = noEvents): Promise<Termination> {
  if (id === ROOT_AGENT_ID) throw agentError("root_agent_fixed", "The root agent cannot be terminated.");
  const agent = await changeActive(db, id, (current) => ({ ...current, status: "terminated", terminatedAt: now }), " already").catch(async (error: unknown) => {
    if (isTerminatedAlready(error)) await cancelWaitingCalls(db, id, new Date(now), resultWaitMs);
    throw error;
  });
  const cancelledCalls = await cancelWaitingCalls(db, id, new Date(now), resultWaitMs);
  await events.publish(agentTerminated(agent));
  return { agent, cancelledCalls };
}

/** Issues a fresh token, expiring TOOLGATE_AGENT_TOKEN_DAYS from now, and revokes every earlier one. */
export async function reissueToken(db: Db, tokens: TokenSigner, id: string, now: string): Promise<IssuedAgent> {
  const tokenExpiresAt = tokens.agentTokenExpiry(now);
  const agent = await changeActive(db, id, (current) => ({ ...current, tokenVersion: current.tokenVersion + 1, tokenExpiresAt }), "; a terminated agent gets no token");
  return { agent, token: await tokens.sign({ agentId: id, tokenVersion: agent.tokenVersion, expiresAt: tokenExpiresAt }) };
}

export async function ensureRoot(db: Db, now: string): Promise<void> {
  if (await getAgent(db, ROOT_AGENT_ID)) return;
  const root: Agent = {
    id: ROOT_AGENT_ID,
    roleId: ROOT_ROLE_ID,
    name: "root",
    status: "active",
    department: null,
    level: null,
    workspaceRoot: null,
    createdBy: "system",
    createdAt: now,
    tokenVersion: 1,
  };
  // Root is created on a table's first start, so a table that gets it here holds nothing stored before the listing indexes and counts.
  if ((await uncontended(db.contentionDeadlineMs, () => insertAgent(db, root))) === "ok") await markBackfilled(db);
}

/** Agents newest first, optionally of one role and one status. */
export async function list(db: Db, filter: AgentFilter, limit: number, cursor: string | undefined) {
  const page = await listAgents(db, filter, limit, cursor);
  if (page === "invalid_cursor") throw invalidCursor();
  return page;
}

/** Who is calling: the admin, an agent, or an answering token (which only reads and answers agents' questions). */
export type Principal = { kind: "admin" } | { kind: "agent"; agent: Agent } | { kind: "answerer"; answerToken: AnswerToken };

export type AuthDeps = { db: Db; tokens: TokenSigner; agents: AgentCache; adminDigest: Buffer };

export const digest = (value: string) => createHash("sha256").update(value).digest();

/** A token that is the agent's own, refused because the agent is terminated: the refusal still says whose token it was. */
export class AgentTerminatedError extends ToolgateError {
  constructor(readonly agent: Agent) {
    super(AGENT_ERRORS.forbidden, "forbidden", `The agent "${agent.id}" is terminated.`);
  }
}

/**
 * Who is calling, from a bearer token alone: the admin, the active agent the token was issued to, or an answering
 * token not revoked. With `cachedAgent` a warm process trusts its copy of the agent, because the guard's write that
 * admits the call proves the token version and status current; everything else reads the agent. An answering token is
 * read on every request, so its revocation holds on every instance at once.
 */
export async function authenticate(deps: AuthDeps, token: string, options: { cachedAgent?: boolean } = {}): Promise<Principal> {
  if (timingSafeEqual(digest(token), deps.adminDigest)) return { kind: "admin" };
  const claims = await deps.tokens.verify(token);
  if (!claims) throw agentError("unauthenticated", "The token is not valid.");
  if (claims.kind === "agent" && claims.expiresAt * 1000 <= Date.now())
    throw agentError(
      "unauthenticated",
      `The token expired on ${new Date(claims.expiresAt * 1000).toISOString()}; an admin issues the agent a new one with POST /agents/${claims.agentId}/token.`,
    );
  if (claims.kind === "answerer") {
    const answerToken = await AnswerTokens.current(deps.db, claims.answerTokenId);
    if (!answerToken) throw tokenRevoked();
    return { kind: "answerer", answerToken };
  }
  const agent = options.cachedAgent ? await deps.agents.get(claims.agentId, claims.tokenVersion) : await deps.agents.refresh(claims.agentId);
  if (!agent || agent.tokenVersion !== claims.tokenVersion) throw tokenRevoked();
  if (agent.status !== "active") throw new AgentTerminatedError(agent);
  return { kind: "agent", agent };
}
