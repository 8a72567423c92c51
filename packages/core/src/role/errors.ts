import { errorCatalog } from "../error";

/** Roles: a role, its groups or its pins that are not valid; a role missing, taken, fixed, in use, or not yet known to be unused. */
export const ROLE_ERRORS = {
  invalid_role: 400,
  unknown_tool_group: 400,
  invalid_pinned_tools: 400,
  role_not_found: 404,
  role_name_taken: 409,
  root_role_fixed: 409,
  role_in_use: 409,
  indexes_pending: 503,
} as const;

export const roleError = errorCatalog(ROLE_ERRORS);
