import { errorCatalog } from "../error";

/** Calls as the API takes and shows them: a call or a client's result that is not valid, a call that does not exist. */
export const CALL_ERRORS = {
  invalid_request: 400,
  invalid_result: 400,
  call_not_found: 404,
} as const;

export const callError = errorCatalog(CALL_ERRORS);

export const callNotFound = (agentId: string, callId: string) => callError("call_not_found", `Agent "${agentId}" has no call "${callId}".`);
