import type { z } from "zod";
import { badRequest } from "./error";

export type Issue = { path: string; message: string };

export const describeIssues = (error: z.ZodError): Issue[] =>
  error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
  }));

export const summarise = (issues: Issue[]) =>
  issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ") + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : "");

/** Parses input with a schema, turning a failure into a 400 with the given code and per-field details. */
export function parseOr<S extends z.ZodType>(schema: S, input: unknown, code: string, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = describeIssues(result.error);
  throw badRequest(code, `${what} is not valid: ${summarise(details)}.`, { details });
}
