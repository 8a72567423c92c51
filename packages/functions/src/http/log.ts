import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes, routePath } from "hono/route";
import type { Principal } from "@toolgate/core/agent";
import { ToolgateError } from "@toolgate/core/error";
import type { RequestLine, RequestLog } from "../log";

type Seen = { principal?: Principal; callId?: string };

/** API Gateway's id for the request on AWS; one made here on a single machine. */
const requestIdOf = (c: Context) => (c.env as { requestContext?: { requestId?: string } } | undefined)?.requestContext?.requestId ?? randomUUID();

/** The declared route that answered ("GET /agents/:id"), or undefined when no route matched. */
function routeOf(c: Context) {
  const path = routePath(c);
  if (path === "" || path === "/*") return undefined;
  return `${matchedRoutes(c)[c.req.routeIndex]?.method ?? c.req.method} ${path}`;
}

/**
 * Who the verified token named: the admin, an agent and its id, an answering token and its id (never the token
 * itself), or none (no token, a refused one, or a public route).
 */
function caller(principal: Principal | undefined): Pick<RequestLine, "principal" | "agentId" | "answerTokenId"> {
  if (!principal) return { principal: "none" };
  if (principal.kind === "agent") return { principal: "agent", agentId: principal.agent.id };
  return principal.kind === "answerer" ? { principal: "answerer", answerTokenId: principal.answerToken.id } : { principal: "admin" };
}

/** A refused call is recorded too: its id travels in the refusal's details. */
const refusedCallId = (error: unknown) => (error instanceof ToolgateError && typeof error.details.callId === "string" ? error.details.callId : undefined);

/** The request's line, made after its answer; the call's id when the route names one, the handler made one or a refusal carries one. */
export const requestLog =
  (log: RequestLog): MiddlewareHandler =>
  async (c, next) => {
    const started = performance.now();
    await next();
    const seen = c.var as Seen;
    const callId = seen.callId ?? refusedCallId(c.error) ?? c.req.param("callId");
    log({
      requestId: requestIdOf(c),
      method: c.req.method,
      route: routeOf(c) ?? null,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...caller(seen.principal),
      ...(callId ? { callId } : {}),
    });
  };
