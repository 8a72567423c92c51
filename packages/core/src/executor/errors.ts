import { errorCatalog } from "../error";

/** How a call is carried out: by the agent's runtime, by no executor, by one that failed or took too long. */
export const EXECUTOR_ERRORS = {
  client_executed: 409,
  no_executor: 501,
  executor_failed: 502,
  tool_timeout: 504,
} as const;

export const executorError = errorCatalog(EXECUTOR_ERRORS);

export const noNativeImplementation = (tool: string) =>
  executorError("no_executor", `toolgate has no native implementation of "${tool}".`, { recoverable: false });
