import { QueuedCall } from "@toolgate/core/call";
import * as A from "./answers";
import { POLICY_ERRORS } from "@toolgate/core/policy";
import { errorsFrom, mergeErrors } from "./describe";
import type { RouteDocs } from "./describe";

const AGENT_REFUSALS = { 404: ["agent_not_found"] } as const;
const GUARD_REFUSALS = {
  400: ["invalid_request", "invalid_arguments", "json_too_deep"],
  403: ["tool_not_available", "tool_disabled", "permission_denied", "cannot_grant_groups"],
  404: ["unknown_tool"],
  409: ["client_executed"],
  429: ["rate_limited", "doom_loop_detected"],
  501: ["no_executor"],
  502: ["executor_failed"],
  504: ["tool_timeout"],
} as const;

export const executionDocs = {
  "GET /agents": { summary: "Agents, newest first, by role and status", answers: { 200: A.page("agents", A.PublicAgent) }, errors: { 400: ["invalid_cursor"] } },
  "POST /agents": { summary: "Create an agent bound to a role; its token is shown once", answers: { 201: A.AgentWithToken }, errors: { 400: ["role_not_found", "workspace_root_outside_role"] } },
  "GET /agents/:id": { summary: "One agent", answers: { 200: A.PublicAgent }, errors: AGENT_REFUSALS },
  "DELETE /agents/:id": {
    summary: "Terminate an agent; its token stops working and the calls it left waiting are cancelled",
    answers: { 200: A.TerminatedAgent },
    errors: { ...AGENT_REFUSALS, 409: ["root_agent_fixed", "agent_terminated"] },
  },
  "POST /agents/:id/token": { summary: "A fresh token; earlier ones stop working", answers: { 201: A.AgentWithToken }, errors: { ...AGENT_REFUSALS, 409: ["agent_terminated"] } },
  "GET /agents/:id/tools": { summary: "The tools the agent may call now, in one model API's shape", answers: { 200: A.AgentTools }, errors: AGENT_REFUSALS },
  "GET /agents/:id/tools/search": { summary: "The agent's own tools that best match a task in plain words", answers: { 200: A.ToolSearchResult }, errors: AGENT_REFUSALS },
  "GET /agents/:id/messages": { summary: "Messages to the agent, oldest first", answers: { 200: A.MessagePage }, errors: { ...AGENT_REFUSALS, 400: ["invalid_cursor"] } },
  "POST /agents/:id/calls": {
    summary: "A tool call through the guard: it runs, waits for an approval (202) or is refused, and is recorded",
    answers: { 200: A.CallAnswer, 202: A.CallAnswer },
    errors: mergeErrors(GUARD_REFUSALS, errorsFrom(POLICY_ERRORS, "policy_denied", "unreadable_command", "policy_unavailable")),
  },
  "GET /agents/:id/calls": { summary: "The agent's calls, newest first, by status and tool", answers: { 200: A.CallPage }, errors: { ...AGENT_REFUSALS, 400: ["invalid_cursor"] } },
  "GET /agents/:id/calls/:callId": { summary: "One call record", answers: { 200: A.CallRecord }, errors: { 404: ["agent_not_found", "call_not_found"] } },
  "POST /agents/:id/calls/:callId/result": {
    summary: "The runtime's result for a client-executed call",
    answers: { 200: A.CallRecord },
    errors: { 404: ["call_not_found"], 409: ["call_not_awaiting_result"] },
  },
  "GET /calls": { summary: "The approval queue across every agent, oldest first", answers: { 200: A.page("calls", QueuedCall) }, errors: { 400: ["invalid_cursor"] } },
  "POST /calls/:callId/approve": {
    summary: "Approve a call awaiting confirmation; the tool runs once",
    answers: { 200: A.CallRecord },
    errors: { 404: ["call_not_found"], 409: ["call_already_answered", "agent_terminated", "no_longer_allowed"] },
  },
  "POST /calls/:callId/deny": { summary: "Deny a call awaiting confirmation", answers: { 200: A.CallRecord }, errors: { 404: ["call_not_found"], 409: ["call_already_answered", "agent_terminated"] } },
  "POST /mcp": {
    summary: "The agent's governed MCP endpoint (Streamable HTTP, JSON-RPC): tools/list and tools/call through the guard",
    access: "self",
    answers: { 200: A.JsonRpcMessage, 202: null },
    errors: { 401: ["unauthenticated"], 403: ["forbidden"] },
  },
  "GET /mcp": { summary: "Not served: a 2025 client's event stream is answered 405", access: "self", answers: {}, errors: { 401: ["unauthenticated"], 405: ["method_not_allowed"] } },
  "DELETE /mcp": { summary: "Not served: sessions are stateless, answered 405", access: "self", answers: {}, errors: { 401: ["unauthenticated"], 405: ["method_not_allowed"] } },
  "GET /.well-known/oauth-protected-resource": { summary: "RFC 9728 metadata of the MCP resource", access: "public", answers: { 200: A.ResourceMetadata } },
  "GET /.well-known/oauth-protected-resource/mcp": { summary: "RFC 9728 metadata of the MCP resource", access: "public", answers: { 200: A.ResourceMetadata } },
} satisfies RouteDocs<"execution">;
