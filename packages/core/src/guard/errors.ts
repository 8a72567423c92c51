import { errorCatalog, ToolgateError } from "../error";

/** The guard's refusals of a call, and the answers to a call that waits (an approval, a client's result). */
export const GUARD_ERRORS = {
  invalid_arguments: 400,
  not_the_paused_call: 400,
  call_already_answered: 409,
  call_not_awaiting_result: 409,
  no_longer_allowed: 409,
  rate_limited: 429,
  doom_loop_detected: 429,
} as const;

export const guardError = errorCatalog(GUARD_ERRORS);

/** The same refusal or failure, naming the call it ended (its record holds the same code and message). */
export const namingCall = (error: ToolgateError, callId: string) => new ToolgateError(error.status, error.code, error.message, { ...error.details, callId });
