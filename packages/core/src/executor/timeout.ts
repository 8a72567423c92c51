import { ToolgateError } from "../error";

export const timedOut = (tool: string, timeoutMs: number) =>
  new ToolgateError(504, "tool_timeout", `The tool "${tool}" did not finish within ${timeoutMs} ms.`, { timeoutMs, recoverable: true });
