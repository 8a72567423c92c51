import * as A from "./answers";
import { COMMON_ERRORS } from "@toolgate/core/error";
import { ROLE_ERRORS } from "@toolgate/core/role";
import { errorsFrom, HTML, mergeErrors } from "./describe";
import type { RouteDocs } from "./describe";

const ROLE_NOT_FOUND = errorsFrom(ROLE_ERRORS, "role_not_found");

export const rolesDocs = {
  "GET /roles": { summary: "Every role, with its effective groups and token costs", answers: { 200: A.RoleList } },
  "POST /roles": {
    summary: "Create a role (no toolGroups: every group, including later ones)",
    answers: { 201: A.RoleView },
    errors: errorsFrom(ROLE_ERRORS, "unknown_tool_group", "invalid_pinned_tools", "role_name_taken"),
  },
  "GET /roles/by-name/:name": { summary: "A role by its name", answers: { 200: A.RoleView }, errors: ROLE_NOT_FOUND },
  "GET /roles/:id": { summary: "One role, with an ETag of its version", answers: { 200: A.RoleView }, errors: ROLE_NOT_FOUND },
  "PATCH /roles/:id": {
    summary: "Change a role (If-Match: <version> refuses a stale change)",
    answers: { 200: A.RoleView },
    errors: mergeErrors(
      errorsFrom(ROLE_ERRORS, "unknown_tool_group", "invalid_pinned_tools", "role_not_found", "role_name_taken", "root_role_fixed"),
      errorsFrom(COMMON_ERRORS, "invalid_if_match", "version_conflict"),
    ),
  },
  "DELETE /roles/:id": {
    summary: "Delete a role no active agent is bound to",
    answers: { 204: null },
    errors: errorsFrom(ROLE_ERRORS, "role_not_found", "role_in_use", "root_role_fixed", "indexes_pending"),
  },
  "GET /": { summary: "Where to start: points to the console and the API's documentation", answers: { 200: HTML }, access: "public" },
  "GET /console": { summary: "The operator console (sign in with the admin token)", answers: { 200: HTML }, access: "public" },
  "GET /console/*": { summary: "A page of the operator console (an unknown one is a 404 page)", answers: { 200: HTML }, access: "public" },
  "GET /openapi.json": { summary: "This document: OpenAPI 3.1, generated from routes.ts and the schemas the API validates with", answers: { 200: A.OpenApiDocument }, access: "public" },
  "GET /docs": { summary: "This document as a page for people", answers: { 200: HTML }, access: "public" },
} satisfies RouteDocs<"roles">;
