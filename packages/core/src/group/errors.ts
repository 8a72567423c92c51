import { errorCatalog } from "../error";

/** Tool groups: a definition or executor that is not valid; a group missing, reserved, taken or changed; an import that failed. */
export const GROUP_ERRORS = {
  invalid_group_def: 400,
  invalid_executor: 400,
  group_not_found: 404,
  reserved_group_id: 409,
  reserved_tool_name: 409,
  tool_name_conflict: 409,
  not_an_mcp_group: 409,
  group_changed: 409,
  mcp_import_failed: 502,
} as const;

export const groupError = errorCatalog(GROUP_ERRORS);

export const groupNotFound = (id: string) => groupError("group_not_found", `There is no tool group "${id}".`, { groupId: id });
