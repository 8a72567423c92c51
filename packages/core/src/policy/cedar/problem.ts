/** A problem Cedar found in a policy, as an operator reads it: Cedar's message, its help, and where in the text. */
export type PolicyProblem = { message: string; help?: string; start?: number; end?: number; line?: number; column?: number };

/** The line and column (from 1) of a character offset in the text. */
export function positionOf(text: string, offset: number) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}
