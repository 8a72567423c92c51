import * as A from "./answers";
import { ACCESS_ERRORS } from "@toolgate/core/access";
import { COMMON_ERRORS } from "@toolgate/core/error";
import { GROUP_ERRORS } from "@toolgate/core/group";
import { MODULE_ERRORS } from "@toolgate/core/module";
import { POLICY_ERRORS } from "@toolgate/core/policy";
import { errorsFrom, mergeErrors } from "./describe";
import type { RouteDocs } from "./describe";

const UNKNOWN_TOOL = errorsFrom(ACCESS_ERRORS, "unknown_tool");
const STALE_POLICY = errorsFrom(COMMON_ERRORS, "invalid_if_match", "version_conflict");

export const groupsDocs = {
  "GET /health": { summary: "Whether toolgate and its store answer", answers: { 200: A.Health }, errors: {} },
  "GET /groups": { summary: "Every tool group, with what its tools cost in tokens", answers: { 200: A.GroupList } },
  "GET /groups/:id": { summary: "One group with its full tool definitions", answers: { 200: A.GroupView }, errors: errorsFrom(GROUP_ERRORS, "group_not_found") },
  "PUT /groups/:id": {
    summary: "Register or replace a group (an mcp executor's tools may be left out and are imported)",
    answers: { 201: A.GroupView, 200: A.GroupView },
    errors: errorsFrom(GROUP_ERRORS, "invalid_group_def", "reserved_group_id", "reserved_tool_name", "tool_name_conflict", "mcp_import_failed"),
  },
  "PUT /groups/:id/executor": { summary: "Bind an executor to a group", answers: { 200: A.GroupView }, errors: errorsFrom(GROUP_ERRORS, "group_not_found") },
  "POST /groups/:id/refresh": {
    summary: "Import an MCP-served group's tools again from its server",
    answers: { 200: A.RefreshedGroup },
    errors: errorsFrom(GROUP_ERRORS, "group_not_found", "reserved_group_id", "not_an_mcp_group", "group_changed", "reserved_tool_name", "tool_name_conflict", "mcp_import_failed"),
  },
  "DELETE /groups/:id": { summary: "Remove a group", answers: { 204: null }, errors: errorsFrom(GROUP_ERRORS, "group_not_found", "reserved_group_id") },
  "GET /tools": { summary: "The catalog's tools, by category, tag and text, each with its effective policy and whether an admin overrode it", answers: { 200: A.ToolList } },
  "GET /tools/stats": { summary: "Counts of the catalog's tools and their tokens", answers: { 200: A.ToolStats } },
  "GET /tools/:name": { summary: "One tool: its effective policy, the admin's override and its definition", answers: { 200: A.ToolView }, errors: UNKNOWN_TOOL },
  "PUT /tools/:name/policy": { summary: "Replace the admin's override of a tool's policy", answers: { 200: A.PolicyChange }, errors: UNKNOWN_TOOL },
  "PATCH /tools/:name/policy": { summary: "Merge into the override (JSON Merge Patch: null removes a field)", answers: { 200: A.PolicyChange }, errors: UNKNOWN_TOOL },
  "POST /tools/:name/disable": { summary: "Switch a tool off", answers: { 200: A.PolicyChange }, errors: UNKNOWN_TOOL },
  "POST /tools/:name/enable": { summary: "Switch a tool on again", answers: { 200: A.PolicyChange }, errors: UNKNOWN_TOOL },
  "GET /modules": { summary: "Every module that sent an event, with its status", answers: { 200: A.ModuleList } },
  "GET /modules/:name": { summary: "One module's status", answers: { 200: A.ModuleState }, errors: errorsFrom(MODULE_ERRORS, "module_not_found") },
  "GET /departments": { summary: "Every department in use: how many active agents carry its name, and the groups of its scope", answers: { 200: A.DepartmentList } },
  "GET /policies": { summary: "Every Cedar policy about calls, each with its problems against the catalog now", answers: { 200: A.CedarPolicyList } },
  "POST /policies/validate": { summary: "Check a draft policy (Cedar or a short rule) without saving it", answers: { 200: A.PolicyCheck } },
  "POST /policies/simulate": {
    summary: "Replay recent calls against a draft (policies put or deleted) and answer the calls whose effect would change",
    answers: { 200: A.Simulation },
    errors: errorsFrom(POLICY_ERRORS, "invalid_simulation", "invalid_policy"),
  },
  "GET /policies/:id": { summary: "One policy, with an ETag of its version", answers: { 200: A.CedarPolicy }, errors: errorsFrom(POLICY_ERRORS, "invalid_policy_id", "policy_not_found") },
  "PUT /policies/:id": {
    summary: "Create or replace a policy (If-Match: <version> refuses a stale change; If-None-Match: * creates only)",
    answers: { 200: A.CedarPolicy, 201: A.CedarPolicy },
    errors: mergeErrors(errorsFrom(POLICY_ERRORS, "invalid_policy", "invalid_policy_id", "too_many_policies"), STALE_POLICY),
  },
  "DELETE /policies/:id": {
    summary: "Delete a policy (If-Match: <version> refuses a stale change)",
    answers: { 204: null },
    errors: mergeErrors(errorsFrom(POLICY_ERRORS, "invalid_policy_id", "policy_not_found"), STALE_POLICY),
  },
} satisfies RouteDocs<"groups">;
