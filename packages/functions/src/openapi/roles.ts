import * as A from "./answers";
import { HTML } from "./describe";
import type { RouteDocs } from "./describe";

export const rolesDocs = {
  "GET /roles": { summary: "Every role, with its effective groups and token costs", answers: { 200: A.RoleList } },
  "POST /roles": {
    summary: "Create a role (no toolGroups: every group, including later ones)",
    answers: { 201: A.RoleView },
    errors: { 400: ["unknown_tool_group", "invalid_pinned_tools"], 409: ["role_name_taken"] },
  },
  "GET /roles/by-name/:name": { summary: "A role by its name", answers: { 200: A.RoleView }, errors: { 404: ["role_not_found"] } },
  "GET /roles/:id": { summary: "One role, with an ETag of its version", answers: { 200: A.RoleView }, errors: { 404: ["role_not_found"] } },
  "PATCH /roles/:id": {
    summary: "Change a role (If-Match: <version> refuses a stale change)",
    answers: { 200: A.RoleView },
    errors: { 400: ["unknown_tool_group", "invalid_pinned_tools", "invalid_if_match"], 404: ["role_not_found"], 409: ["role_name_taken", "root_role_fixed"], 412: ["version_conflict"] },
  },
  "DELETE /roles/:id": {
    summary: "Delete a role no active agent is bound to",
    answers: { 204: null },
    errors: { 404: ["role_not_found"], 409: ["role_in_use", "root_role_fixed"], 503: ["indexes_pending"] },
  },
  "GET /": { summary: "Where to start: points to the console and the API's documentation", answers: { 200: HTML }, access: "public" },
  "GET /console": { summary: "The operator console (sign in with the admin token)", answers: { 200: HTML }, access: "public" },
  "GET /console/*": { summary: "A page of the operator console", answers: { 200: HTML }, access: "public", errors: { 404: ["not_found"] } },
  "GET /openapi.json": { summary: "This document: OpenAPI 3.1, generated from routes.ts and the schemas the API validates with", answers: { 200: A.OpenApiDocument }, access: "public" },
  "GET /docs": { summary: "This document as a page for people", answers: { 200: HTML }, access: "public" },
} satisfies RouteDocs<"roles">;
