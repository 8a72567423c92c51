import { errorCatalog } from "../error";

/** What an agent may see and call: its role gone, a tool it may not use or grant, a tool that does not exist. */
export const ACCESS_ERRORS = {
  role_not_found: 403,
  tool_not_available: 403,
  ambiguous_resource: 400,
  tool_disabled: 403,
  permission_denied: 403,
  cannot_grant_groups: 403,
  unknown_tool: 404,
} as const;

export const accessError = errorCatalog(ACCESS_ERRORS);
