import { Hono } from "hono";
import type { Context } from "hono";
import { agentError } from "@toolgate/core/agent";
import type { Agent } from "@toolgate/core/agent";
import { ToolgateError } from "@toolgate/core/error";
import { API } from "../routes";
import type { Env } from "../http/app";
import { authenticate, bearerToken } from "../http/auth";
import { readBody } from "../http/body";
import type { BodyProblem, ReadBody } from "../http/body";
import { method, path } from "../http/route";

const R = API.execution.mcp;
const RESOURCE_METADATA_PATH = path(R.resource);

/** The service's public origin: as configured, or as the request reached it. */
const originOf = (c: Context) => process.env.TOOLGATE_PUBLIC_URL?.replace(/\/+$/, "") || new URL(c.req.url).origin;

/** RFC 9728: what this resource is and how to present a token to it. */
const resourceMetadata = (c: Context) =>
  c.json({
    resource: `${originOf(c)}${path(R.post)}`,
    resource_name: "toolgate",
    bearer_methods_supported: ["header"],
  });

/** 401 with the challenge MCP clients follow to find how to get a token. */
function challenge(c: Context, message: string) {
  const refusal = agentError("unauthenticated", message);
  return c.json(refusal.toBody(), refusal.status, { "WWW-Authenticate": `Bearer resource_metadata="${originOf(c)}${RESOURCE_METADATA_PATH}"` });
}

/** One tools/call: its guard proves the caller's token current in the write that admits it, so a cached agent will do. */
const isToolCall = (body: unknown) => (body as { method?: unknown } | null)?.method === "tools/call";

/**
 * The agent a bearer token names (its own token, verified), as REST decides it: a revoked token is 401, a terminated
 * agent 403, for every request, the handshake included. Only a tools/call trusts the process's copy of the agent.
 */
async function agentOf(c: Context<Env>, body: unknown): Promise<Agent> {
  const principal = await authenticate(c, { cachedAgent: isToolCall(body) });
  if (principal.kind !== "agent")
    throw agentError("forbidden", `An MCP session is an agent: connect with an agent's own token, not ${principal.kind === "admin" ? "the admin token" : "an answering token"}.`);
  return principal.agent;
}

let loading: Promise<typeof import("@toolgate/core/mcp")> | undefined;
/** The MCP SDK, loaded on the first MCP request rather than at a cold start, then kept (an import() per request costs). */
const loadMcp = () => (loading ??= import("@toolgate/core/mcp"));

/** Every agent's governed MCP endpoint: its own tools, through the guard. A refusal of the caller's token is the 401 challenge. */
async function serve(c: Context<Env>) {
  if (!bearerToken(c)) return challenge(c, "Connect with an agent's token: 'Authorization: Bearer <token>'.");
  try {
    const read = await withBody(c);
    if ("refused" in read) return read.refused;
    const { request, parsedBody } = read;
    const agent = await agentOf(c, parsedBody);
    const { serveMcp } = await loadMcp();
    return await serveMcp(request, parsedBody, { deps: c.get("toolgate").guard, agent, settings: c.get("toolgate").mcp });
  } catch (error) {
    if (error instanceof ToolgateError && error.status === 401) return challenge(c, error.message);
    throw error;
  }
}

/** A body /mcp does not read, answered as JSON-RPC answers it: 400 with the request's id when it has one. */
function refusedBody({ json, problem }: ReadBody & { problem: BodyProblem }): Response {
  const id = json !== null && typeof json === "object" && "id" in json ? (json as { id: unknown }).id : null;
  const code = json === undefined ? -32700 : -32600;
  return Response.json({ jsonrpc: "2.0", id, error: { code, message: problem.message, data: { code: problem.code } } }, { status: 400 });
}

/**
 * A POST's JSON read here, on the edge's fast path, and handed to the SDK parsed (it would otherwise clone the request
 * and read it through web streams). A body that is empty or not JSON goes to the SDK as it came, for its own answer;
 * one that is not UTF-8, nests deeper than REST accepts or holds a `__proto__` key is refused here.
 */
async function withBody(c: Context<Env>): Promise<{ request: Request; parsedBody?: unknown } | { refused: Response }> {
  if (c.req.method !== "POST") return { request: c.req.raw };
  const body = await readBody(c);
  if (body.problem && (body.json !== undefined || body.text === "")) return { refused: refusedBody({ ...body, problem: body.problem }) };
  if (body.json !== undefined) return { request: c.req.raw, parsedBody: body.json };
  return { request: new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: body.text }) };
}

export const mcp = new Hono<Env>()
  .on(method(R.post), path(R.post), serve)
  .on(method(R.get), path(R.get), serve)
  .on(method(R.remove), path(R.remove), serve)
  .on(method(R.resource), path(R.resource), resourceMetadata)
  .on(method(R.resourceOfMcp), path(R.resourceOfMcp), resourceMetadata);
