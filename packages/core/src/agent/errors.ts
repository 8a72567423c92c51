import { errorCatalog } from "../error";

/** Agents and who is calling: a token that proves no one, a caller refused, an agent that is missing or ended. */
export const AGENT_ERRORS = {
  invalid_agent: 400,
  role_not_found: 400,
  workspace_root_outside_role: 400,
  unauthenticated: 401,
  forbidden: 403,
  agent_not_found: 404,
  agent_terminated: 409,
  root_agent_fixed: 409,
} as const;

export const agentError = errorCatalog(AGENT_ERRORS);

/** A token this service signed that is no longer honoured: an agent's earlier token, or an answering token revoked. */
export const tokenRevoked = () => agentError("unauthenticated", "The token has been revoked.");
