import { errorCatalog } from "../error";

/**
 * Every refusal of the policy area, with its status: the errors are made from here, and OpenAPI's error lists of the
 * policy routes are built from here, so a code cannot be documented with a status it is not sent with.
 */
export const POLICY_ERRORS = {
  invalid_policy: 400,
  invalid_policy_id: 400,
  invalid_simulation: 400,
  unreadable_command: 400,
  command_too_complex: 400,
  policy_denied: 403,
  policy_not_found: 404,
  too_many_policies: 409,
  policy_unavailable: 503,
} as const;

export const policyError = errorCatalog(POLICY_ERRORS);
