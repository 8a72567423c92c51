import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { agentError, AgentTerminatedError, authenticate as principalOf } from "@toolgate/core/agent";
import type { Agent, Principal } from "@toolgate/core/agent";
import type { Answerer } from "@toolgate/core/question";
import type { Toolgate } from "@toolgate/core/toolgate";
import type { Env } from "./app";

export type { Principal };

const forbidden = (message: string) => agentError("forbidden", message);

/** What an answering token may do, said wherever it is refused. */
const ANSWERING_ONLY =
  "An answering token only reads the questions queue (GET /calls?status=awaiting_answer) and answers questions (POST /calls/:callId/answer)";

/** What authenticating reads and keeps of a request, whatever else its route sets on it. */
type RequestContext = { req: Context["req"]; get(key: "toolgate"): Toolgate; set(key: "principal", principal: Principal): void };

export const bearerToken = (c: Pick<RequestContext, "req">) => c.req.header("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

/**
 * Who is calling, from the bearer token alone: the admin, the active agent the token was issued to, or an answering
 * token. It is kept on the request as soon as the token is verified, before any route decides whether that caller may
 * go on, so the request's log line names who asked on every route that authenticates, refused or not (a terminated
 * agent's too).
 */
export async function authenticate(c: RequestContext, options: { cachedAgent?: boolean } = {}): Promise<Principal> {
  const token = bearerToken(c);
  if (!token) throw agentError("unauthenticated", "Send a token as 'Authorization: Bearer <token>'.");
  const principal = await principalOf(c.get("toolgate").auth, token, options).catch((error: unknown) => {
    if (error instanceof AgentTerminatedError) c.set("principal", { kind: "agent", agent: error.agent });
    throw error;
  });
  c.set("principal", principal);
  return principal;
}

export const requireAdmin = createMiddleware<Env & { Variables: { principal: Principal } }>(async (c, next) => {
  const principal = await authenticate(c);
  if (principal.kind === "answerer") throw forbidden(`${ANSWERING_ONLY}; this route needs the admin token.`);
  if (principal.kind !== "admin") throw forbidden("This route needs the admin token.");
  await next();
});

/** The admin, or the agent named by the `:id` path parameter using its own token. */
export const requireAdminOrSelf = createMiddleware<Env & { Variables: { principal: Principal } }>(async (c, next) => {
  const principal = await authenticate(c);
  if (principal.kind === "answerer") throw forbidden(`${ANSWERING_ONLY}; this route needs the admin token or the agent's own.`);
  if (principal.kind === "agent" && principal.agent.id !== c.req.param("id")) throw forbidden("An agent token only gives access to its own agent.");
  await next();
});

/** The admin, or an answering token: for agents' questions, which a chat bot holding such a token answers. */
export const requireAdminOrAnswerer = createMiddleware<Env & { Variables: { principal: Principal } }>(async (c, next) => {
  const principal = await authenticate(c);
  if (principal.kind === "agent") throw forbidden("This route needs the admin token or an answering token.");
  await next();
});

/** An answering token reads the questions queue only; the approval queue is the admin's. */
export function checkQueueAccess(principal: Principal, status: string) {
  if (principal.kind === "answerer" && status !== "awaiting_answer") throw forbidden(`${ANSWERING_ONLY}; approvals need the admin token.`);
}

/** Who answers, as a question's record names them: the admin, or the answering token. */
export const answererOf = (principal: Principal): Answerer => {
  if (principal.kind === "agent") throw forbidden("This route needs the admin token or an answering token.");
  return principal;
};

const selfOnly = (options: { cachedAgent?: boolean }) =>
  createMiddleware<Env & { Variables: { agent: Agent } }>(async (c, next) => {
    const principal = await authenticate(c, options);
    if (principal.kind === "answerer") throw forbidden(`${ANSWERING_ONLY}; tool calls are made by agents, with their own token.`);
    if (principal.kind !== "agent") throw forbidden("Tool calls are made by agents: use the agent's own token, not the admin token.");
    if (principal.agent.id !== c.req.param("id")) throw forbidden("An agent token only gives access to its own agent.");
    c.set("agent", principal.agent);
    await next();
  });

/** Only the agent named by `:id`, with its own token: what an agent does is attributed to it. */
export const requireSelf = selfOnly({});

/** As requireSelf, from the process's agent cache: for the guarded call, whose admission write proves the token current. */
export const requireSelfCached = selfOnly({ cachedAgent: true });

/** Who did something, as records name them: "admin", an agent's id, or an answering token's id. */
export const principalName = (principal: Principal) => {
  if (principal.kind === "admin") return "admin";
  return principal.kind === "agent" ? principal.agent.id : principal.answerToken.id;
};
