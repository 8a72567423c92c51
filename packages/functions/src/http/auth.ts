import { createMiddleware } from "hono/factory";
import { authenticate as principalOf } from "@toolgate/core/agent";
import type { Agent, Principal } from "@toolgate/core/agent";
import { ToolgateError } from "@toolgate/core/error";
import type { Toolgate } from "@toolgate/core/toolgate";
import type { Env } from "./app";

export type { Principal };

const unauthenticated = (message: string) => new ToolgateError(401, "unauthenticated", message);
const forbidden = (message: string) => new ToolgateError(403, "forbidden", message);

/** Who is calling, from the bearer token alone: the admin, or the active agent the token was issued to. */
function authenticate(toolgate: Toolgate, authorization: string | undefined, options: { cachedAgent?: boolean } = {}): Promise<Principal> {
  const token = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token) throw unauthenticated("Send a token as 'Authorization: Bearer <token>'.");
  return principalOf(toolgate.auth, token, options);
}

export const requireAdmin = createMiddleware<Env & { Variables: { principal: Principal } }>(async (c, next) => {
  const principal = await authenticate(c.get("toolgate"), c.req.header("authorization"));
  if (principal.kind !== "admin") throw forbidden("This route needs the admin token.");
  c.set("principal", principal);
  await next();
});

/** The admin, or the agent named by the `:id` path parameter using its own token. */
export const requireAdminOrSelf = createMiddleware<Env & { Variables: { principal: Principal } }>(async (c, next) => {
  const principal = await authenticate(c.get("toolgate"), c.req.header("authorization"));
  if (principal.kind === "agent" && principal.agent.id !== c.req.param("id")) throw forbidden("An agent token only gives access to its own agent.");
  c.set("principal", principal);
  await next();
});

const selfOnly = (options: { cachedAgent?: boolean }) =>
  createMiddleware<Env & { Variables: { agent: Agent } }>(async (c, next) => {
    const principal = await authenticate(c.get("toolgate"), c.req.header("authorization"), options);
    if (principal.kind !== "agent") throw forbidden("Tool calls are made by agents: use the agent's own token, not the admin token.");
    if (principal.agent.id !== c.req.param("id")) throw forbidden("An agent token only gives access to its own agent.");
    c.set("agent", principal.agent);
    await next();
  });

/** Only the agent named by `:id`, with its own token: what an agent does is attributed to it. */
export const requireSelf = selfOnly({});

/** As requireSelf, from the process's agent cache: for the guarded call, whose admission write proves the token current. */
export const requireSelfCached = selfOnly({ cachedAgent: true });

export const principalName = (principal: Principal) => (principal.kind === "admin" ? "admin" : principal.agent.id);
