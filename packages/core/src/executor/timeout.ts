import { executorError } from "./errors";

export const timedOut = (tool: string, timeoutMs: number) =>
  executorError("tool_timeout", `The tool "${tool}" did not finish within ${timeoutMs} ms.`, { timeoutMs, recoverable: true });
