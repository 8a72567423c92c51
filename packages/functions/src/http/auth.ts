import { createHash, timingSafeEqual } from "node:crypto";
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import { ToolgateError } from "@toolgate/core/error";
import { getAgent } from "@toolgate/core/dynamo/agents";
import type { Agent } from "@toolgate/core/agent/index";
import type { Toolgate } from "@toolgate/core/toolgate";
import type { Env } from "./app";

export type Principal = { kind: "admin" } | { kind: "agent"; agent: Agent };

const digest = (value: string) => createHash("sha256").update(value).digest();

const unauthenticated = (message: string) => new ToolgateError(401, "unauthenticated", message);
const forbidden = (message: string) => new ToolgateError(403, "forbidden", message);

export const isAdminToken = (toolgate: Toolgate, token: string) =>
  timingSafeEqual(digest(token), digest(toolgate.config.adminToken));

/** Who is calling, from the bearer token alone: the admin, or the active agent the token was issued to. */
export async function authenticate(c: Context<Env>, options: { cachedAgent?: boolean } = {}): Promise<Principal> {
  const header = c.req.header("authorization");
  const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token) throw unauthenticated("Send a token as 'Authorization: Bearer <token>'.");
  const toolgate = c.get("toolgate");
  if (isAdminToken(toolgate, token)) return { kind: "admin" };
  const claims = await toolgate.tokens.verify(token);
  if (!claims) throw unauthenticated("The token is not valid.");
  // A cached agent is re-checked by the admission write of the guarded call that uses it.
  const agent = options.cachedAgent
    ? await toolgate.caches.agent(claims.agentId, claims.tokenVersion)
    : await getAgent(toolgate.db, claims.agentId);
  if (!agent || agent.tokenVersion !== claims.tokenVersion) throw unauthenticated("The token has been revoked.");
  if (agent.status !== "active") throw forbidden(`The agent "${agent.id}" is terminated.`);
  return { kind: "agent", agent };
}

export const requireAdmin = createMiddleware<Env>(async (c, next) => {
  const principal = await authenticate(c);
  if (principal.kind !== "admin") throw forbidden("This route needs the admin token.");
  c.set("principal", principal);
  await next();
});

/** The admin, or the agent named by the `:id` path parameter using its own token. */
export const requireAdminOrSelf = createMiddleware<Env>(async (c, next) => {
  const principal = await authenticate(c);
  if (principal.kind === "agent" && principal.agent.id !== c.req.param("id"))
    throw forbidden("An agent token only gives access to its own agent.");
  c.set("principal", principal);
  await next();
});

/** Only the agent named by `:id`, with its own token: what an agent does is attributed to it. */
export const requireSelf = selfOnly({});

/** As requireSelf, from the process's agent cache: for the guarded call, whose admission write re-checks the agent. */
export const requireSelfCached = selfOnly({ cachedAgent: true });

function selfOnly(options: { cachedAgent?: boolean }) {
  return createMiddleware<Env>(async (c, next) => {
    const principal = await authenticate(c, options);
    if (principal.kind !== "agent")
      throw forbidden("Tool calls are made by agents: use the agent's own token, not the admin token.");
    if (principal.agent.id !== c.req.param("id")) throw forbidden("An agent token only gives access to its own agent.");
    c.set("principal", principal);
    await next();
  });
}

export const principalName = (principal: Principal) => (principal.kind === "admin" ? "admin" : principal.agent.id);
