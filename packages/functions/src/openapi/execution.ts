import { QUESTION_ERRORS } from "@toolgate/core/question";
import { ACCESS_ERRORS } from "@toolgate/core/access";
import { AGENT_ERRORS } from "@toolgate/core/agent";
import { ANSWER_TOKEN_ERRORS, AnswerToken } from "@toolgate/core/answer-token";
import { CALL_ERRORS, QueuedCall } from "@toolgate/core/call";
import { COMMON_ERRORS } from "@toolgate/core/error";
import { EXECUTOR_ERRORS } from "@toolgate/core/executor";
import { GUARD_ERRORS } from "@toolgate/core/guard";
import { POLICY_ERRORS } from "@toolgate/core/policy";
import * as A from "./answers";
import { errorsFrom, mergeErrors } from "./describe";
import type { RouteDocs } from "./describe";

const AGENT_NOT_FOUND = errorsFrom(AGENT_ERRORS, "agent_not_found");
const INVALID_CURSOR = errorsFrom(COMMON_ERRORS, "invalid_cursor");
const UNAUTHENTICATED = errorsFrom(AGENT_ERRORS, "unauthenticated");
const GUARD_REFUSALS = mergeErrors(
  errorsFrom(CALL_ERRORS, "invalid_request"),
  errorsFrom(GUARD_ERRORS, "invalid_arguments", "rate_limited", "doom_loop_detected"),
  errorsFrom(COMMON_ERRORS, "json_too_deep"),
  errorsFrom(ACCESS_ERRORS, "tool_not_available", "tool_disabled", "permission_denied", "cannot_grant_groups", "unknown_tool"),
  errorsFrom(EXECUTOR_ERRORS, "client_executed", "no_executor", "executor_failed", "tool_timeout"),
  errorsFrom(POLICY_ERRORS, "policy_denied", "unreadable_command", "command_too_complex", "policy_unavailable"),
);
const OFFER_REFUSALS = mergeErrors(
  errorsFrom(CALL_ERRORS, "invalid_request"),
  errorsFrom(GUARD_ERRORS, "invalid_arguments", "rate_limited", "doom_loop_detected"),
  errorsFrom(ACCESS_ERRORS, "tool_not_available", "ambiguous_resource"),
  errorsFrom(EXECUTOR_ERRORS, "no_executor", "executor_failed", "tool_timeout"),
  errorsFrom(POLICY_ERRORS, "policy_denied", "policy_unavailable"),
);
const UNANSWERABLE_APPROVAL = mergeErrors(
  errorsFrom(CALL_ERRORS, "call_not_found"),
  errorsFrom(GUARD_ERRORS, "call_already_answered"),
  errorsFrom(AGENT_ERRORS, "agent_terminated"),
);

export const executionDocs = {
  "GET /agents": { summary: "Agents, newest first, by role and status", answers: { 200: A.page("agents", A.PublicAgent) }, errors: INVALID_CURSOR },
  "POST /agents": {
    summary: "Create an agent bound to a role; its token is shown once",
    answers: { 201: A.AgentWithToken },
    errors: errorsFrom(AGENT_ERRORS, "role_not_found", "workspace_root_outside_role"),
  },
  "GET /agents/:id": { summary: "One agent", answers: { 200: A.PublicAgent }, errors: AGENT_NOT_FOUND },
  "DELETE /agents/:id": {
    summary: "Terminate an agent; its token stops working and the calls it left waiting are cancelled",
    answers: { 200: A.TerminatedAgent },
    errors: errorsFrom(AGENT_ERRORS, "agent_not_found", "root_agent_fixed", "agent_terminated"),
  },
  "POST /agents/:id/token": {
    summary: "A fresh token; earlier ones stop working",
    answers: { 201: A.AgentWithToken },
    errors: errorsFrom(AGENT_ERRORS, "agent_not_found", "agent_terminated"),
  },
  "GET /agents/:id/tools": { summary: "The tools the agent may call now, in one model API's shape", answers: { 200: A.AgentTools }, errors: AGENT_NOT_FOUND },
  "GET /agents/:id/tools/search": { summary: "The agent's own tools that best match a task in plain words", answers: { 200: A.ToolSearchResult }, errors: AGENT_NOT_FOUND },
  "GET /agents/:id/tools/layers": {
    summary: "The tools the agent may call, each with the layer (group and scope) it comes from and what it shadows",
    answers: { 200: A.ToolLayers },
    errors: AGENT_NOT_FOUND,
  },
  "GET /agents/:id/resources": {
    summary: "The resources and resource templates the agent may read, from its groups' MCP servers, under toolgate://<group>/<the server's URI>",
    answers: { 200: A.AgentResources },
    errors: AGENT_NOT_FOUND,
  },
  "GET /agents/:id/resources/read": {
    summary: "Read a resource through the guard (live from its server, recorded as a call of kind resource)",
    description: "A URI the agent could not have listed is refused as an unavailable tool is (403 tool_not_available).",
    answers: { 200: A.ReadAnswer },
    errors: OFFER_REFUSALS,
  },
  "GET /agents/:id/prompts": { summary: "The prompts the agent may get, named as its tools are (the group's toolPrefix first)", answers: { 200: A.AgentPrompts }, errors: AGENT_NOT_FOUND },
  "POST /agents/:id/prompts/:name": {
    summary: "Get a prompt through the guard (live from its server, recorded as a call of kind prompt)",
    answers: { 200: A.PromptAnswer },
    errors: OFFER_REFUSALS,
  },
  "GET /agents/:id/messages": { summary: "Messages to the agent, oldest first", answers: { 200: A.MessagePage }, errors: mergeErrors(AGENT_NOT_FOUND, INVALID_CURSOR) },
  "POST /agents/:id/calls": {
    summary: "A tool call through the guard: it runs, waits for an approval (202) or is refused, and is recorded",
    answers: { 200: A.CallAnswer, 202: A.CallAnswer },
    errors: GUARD_REFUSALS,
  },
  "GET /agents/:id/calls": { summary: "The agent's calls, newest first, by status and tool", answers: { 200: A.CallPage }, errors: mergeErrors(AGENT_NOT_FOUND, INVALID_CURSOR) },
  "GET /agents/:id/calls/:callId": { summary: "One call record", answers: { 200: A.ShownCallRecord }, errors: mergeErrors(AGENT_NOT_FOUND, errorsFrom(CALL_ERRORS, "call_not_found")) },
  "POST /agents/:id/calls/:callId/result": {
    summary: "The runtime's result for a client-executed call",
    answers: { 200: A.CallRecord },
    errors: mergeErrors(errorsFrom(CALL_ERRORS, "call_not_found"), errorsFrom(GUARD_ERRORS, "call_not_awaiting_result")),
  },
  "GET /calls": {
    summary: "An operator's queue across every agent, oldest first: approvals (status=awaiting_confirmation) or questions (status=awaiting_answer)",
    description: "An answering token reads the questions (status=awaiting_answer) only; the approvals need the admin token.",
    answers: { 200: A.page("calls", QueuedCall) },
    errors: INVALID_CURSOR,
  },
  "POST /calls/:callId/approve": {
    summary: "Approve a call awaiting confirmation; the tool runs once",
    answers: { 200: A.CallRecord },
    errors: mergeErrors(UNANSWERABLE_APPROVAL, errorsFrom(GUARD_ERRORS, "no_longer_allowed")),
  },
  "POST /calls/:callId/deny": { summary: "Deny a call awaiting confirmation", answers: { 200: A.CallRecord }, errors: UNANSWERABLE_APPROVAL },
  "POST /calls/:callId/answer": {
    summary: "Answer a question: an agent's (ask_user) with one of its options, several with multiple, or text; a module's form with content; or decline it",
    description: "The record names who answered: answeredBy is \"admin\" or the answering token's id, answeredByName the token's name.",
    answers: { 200: A.CallRecord },
    errors: errorsFrom(QUESTION_ERRORS, "invalid_answer", "question_not_found", "not_awaiting_answer"),
  },
  "GET /answer-tokens": {
    summary: "Answering tokens, newest first: id, name, who made them and when (never the token itself)",
    answers: { 200: A.page("answerTokens", AnswerToken) },
    errors: INVALID_CURSOR,
  },
  "POST /answer-tokens": {
    summary: "Make a named answering token, for a chat bot that answers agents' questions without the admin token; the token is shown once",
    answers: { 201: A.IssuedAnswerToken },
  },
  "DELETE /answer-tokens/:id": {
    summary: "Revoke an answering token: every instance refuses it from then on, an answer on its way included",
    answers: { 204: null },
    errors: errorsFrom(ANSWER_TOKEN_ERRORS, "answer_token_not_found"),
  },
  "POST /mcp": {
    summary: "The agent's governed MCP endpoint (Streamable HTTP, JSON-RPC): tools/list and tools/call through the guard",
    access: "self",
    answers: { 200: A.JsonRpcMessage, 202: null },
    errors: errorsFrom(AGENT_ERRORS, "unauthenticated", "forbidden"),
  },
  "GET /mcp": { summary: "Not served: a 2025 client's event stream is answered 405 (the MCP SDK's JSON-RPC error)", access: "self", answers: {}, errors: UNAUTHENTICATED },
  "DELETE /mcp": { summary: "Not served: sessions are stateless, answered 405 (the MCP SDK's JSON-RPC error)", access: "self", answers: {}, errors: UNAUTHENTICATED },
  "GET /.well-known/oauth-protected-resource": { summary: "RFC 9728 metadata of the MCP resource", access: "public", answers: { 200: A.ResourceMetadata } },
  "GET /.well-known/oauth-protected-resource/mcp": { summary: "RFC 9728 metadata of the MCP resource", access: "public", answers: { 200: A.ResourceMetadata } },
  "GET /.well-known/jwks.json": {
    summary: "The public keys of the call tokens every request to an executor carries (P-256 keys for ES256, one per day: yesterday's, today's and tomorrow's)",
    access: "public",
    answers: { 200: A.Jwks },
  },
} satisfies RouteDocs<"execution">;
