import type { JWTVerifyGetKey } from "jose";
import { CallRefused, verifyCallToken } from "./call-token.js";
import type { VerifiedCall } from "./call-token.js";
import type { ReplayStore } from "./replay.js";
import { runTool } from "./run.js";
import type { ModuleTool } from "./tool.js";

/** The largest call body a module reads: toolgate's arguments are far smaller. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** An answer to toolgate's call, whatever carries it: the HTTP status and the JSON body. */
export type CallAnswer = { status: number; body: Record<string, unknown> };

/** What answers calls: the module's id and tools, the keys toolgate's tokens are checked with, and where accepted tokens are kept. */
export type CallServer = { id: string; tools: ReadonlyMap<string, ModuleTool>; keys: () => JWTVerifyGetKey; replayStore: ReplayStore };

type CallBody = { callId?: unknown; tool?: unknown; agentId?: unknown; arguments?: unknown };

const refusal = (status: number, error: string, message: string): CallAnswer => ({ status, body: { error, message } });

export const NOT_POST = refusal(405, "method_not_allowed", "A module answers toolgate's calls: POST them.");
export const NOT_A_CALL = refusal(400, "invalid_call", "The body is not a call: a JSON object { callId, tool, arguments, agentId, roleId } of at most 1 MiB.");

function bodyOf(text: string): CallBody | undefined {
  if (Buffer.byteLength(text, "utf8") > MAX_BODY_BYTES) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as CallBody) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Answers one call in toolgate's http executor format: nothing runs unless `token` is toolgate's, issued for
 * `audience` (the module's URL), names this very call (its id, agent, tool and arguments) and was never used before;
 * else 401 saying why.
 */
export async function answerCall(server: CallServer, text: string, token: string | null | undefined, audience: string): Promise<CallAnswer> {
  const body = bodyOf(text);
  if (!body) return NOT_A_CALL;
  let call: VerifiedCall;
  try {
    const signed = { callId: body.callId, agentId: body.agentId, tool: body.tool, arguments: body.arguments };
    call = await verifyCallToken(token, signed, server.keys(), audience, { replayStore: server.replayStore });
  } catch (error) {
    if (error instanceof CallRefused) return refusal(401, "unauthenticated", error.message);
    throw error;
  }
  const tool = server.tools.get(call.tool);
  if (!tool) return refusal(404, "unknown_tool", `The module "${server.id}" has no tool "${call.tool}".`);
  const { type, content } = await runTool(tool, body.arguments, call);
  return { status: 200, body: { content, type } };
}
