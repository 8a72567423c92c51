import { ProtocolError } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolgateError } from "../error";
import type { ToolResult } from "../executor/schema";
import type { GuardedCallResponse } from "../guard/index";

/** What a refusal tells the model besides its sentence: the code, the recorded call, and whether and when to try again. */
export type RefusalMeta = { code: string; callId?: string; recoverable?: boolean; retryAfterSeconds?: number; deadline?: string };

const text = (value: string) => [{ type: "text" as const, text: value }];

const asObject = (content: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(content);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A tool's own result. An MCP server's answer is handed on as it came, with toolgate's callId added to its _meta;
 * any other result is its text, and a JSON object result is structuredContent too; a reported error is isError.
 */
export function completed(callId: string, result: Pick<ToolResult, "content" | "type" | "mcpResult">): CallToolResult {
  if (result.mcpResult) return { ...result.mcpResult, _meta: { ...result.mcpResult._meta, callId } };
  const structured = result.type === "json" ? asObject(result.content) : undefined;
  return {
    content: text(result.content),
    ...(structured ? { structuredContent: structured } : {}),
    ...(result.type === "error" ? { isError: true } : {}),
    _meta: { callId },
  };
}

export const refusalResult = (message: string, meta: RefusalMeta): CallToolResult => ({ content: text(message), isError: true, _meta: meta });

/** A refusal the model can act on, as a tool result: the sentence to read, the rest in _meta. */
export function refused(error: ToolgateError): CallToolResult {
  const { callId, recoverable, retryAfterSeconds } = error.details as { callId?: string; recoverable?: boolean; retryAfterSeconds?: number };
  const meta: RefusalMeta = { code: error.code };
  if (typeof callId === "string") meta.callId = callId;
  if (typeof recoverable === "boolean") meta.recoverable = recoverable;
  if (typeof retryAfterSeconds === "number") meta.retryAfterSeconds = retryAfterSeconds;
  return refusalResult(error.message, meta);
}

export type WaitingCall = Extract<GuardedCallResponse, { status: 202 }>;

/** A question put to the agent's own user that got no answer on this call's response: it stays open until its deadline. */
export function notAnswered(agentId: string, { body: { callId, deadline } }: WaitingCall, why?: string): CallToolResult {
  return refusalResult(
    `Your user did not answer your question on this call${why ? ` (${why})` : ""}. It stays open until ${deadline}, when it expires unanswered; read how it ends with GET /agents/${agentId}/calls/${callId}.`,
    { code: "awaiting_answer", callId, recoverable: true, deadline },
  );
}

/** A call the guard did not run now: it waits for an operator's approval or answer, or for the agent's own runtime. Never a success. */
export function waiting(agentId: string, response: WaitingCall): CallToolResult {
  const { callId, tool, deadline } = response.body;
  if (response.body.status === "awaiting_answer")
    return refusalResult(
      `Your question has been sent to an operator (call ${callId}); it waits for an answer until ${deadline}, when it expires unanswered. Read the answer later with GET /agents/${agentId}/calls/${callId} (its result); do not ask again meanwhile.`,
      { code: "awaiting_answer", callId, recoverable: true, deadline },
    );
  if (response.body.status === "awaiting_confirmation")
    return refusalResult(
      `The call to "${tool}" has not run: it awaits an operator's approval (call ${callId}) until ${deadline}, when it expires unanswered. An operator approves or denies it with POST /calls/${callId}/approve or /deny; GET /agents/${agentId}/calls/${callId} shows how it ends. Do not call it again meanwhile.`,
      { code: "awaiting_confirmation", callId, recoverable: true, deadline },
    );
  return refusalResult(
    `The tool "${tool}" runs in the agent's own runtime, not in toolgate: run it there and report its result with POST /agents/${agentId}/calls/${callId}/result before ${deadline}.`,
    { code: "client_executed", callId, recoverable: false, deadline },
  );
}

/**
 * An MCP server's error that the agent's client gets as a JSON-RPC error with the server's code and data (a capability
 * its request did not declare, -32021), toolgate's sentence and the recorded call; undefined for any other refusal.
 */
export function upstreamError(error: ToolgateError): ProtocolError | undefined {
  const { mcpError, callId } = error.details as { mcpError?: { code: number; data?: unknown }; callId?: string };
  if (!mcpError) return undefined;
  const data = mcpError.data === undefined || (typeof mcpError.data === "object" && mcpError.data !== null && !Array.isArray(mcpError.data)) ? { ...(mcpError.data as object | undefined), ...(callId ? { callId } : {}) } : mcpError.data;
  return new ProtocolError(mcpError.code, error.message, data);
}
