import { errorCatalog } from "../error";

/** Messages between agents: a recipient that does not exist or is terminated is a bad request of the sender. */
export const MESSAGE_ERRORS = {
  agent_not_found: 400,
  agent_terminated: 400,
} as const;

export const messageError = errorCatalog(MESSAGE_ERRORS);
