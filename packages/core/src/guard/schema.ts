import * as z from "zod";

const Window = z.tuple([z.number(), z.number()]);
const ToolRate = z.object({ tool: z.string(), minute: Window.optional(), hour: Window.optional() });
export type ToolRate = z.infer<typeof ToolRate>;

/** Earlier versions kept the counters in a map keyed by tool name; a tool named "__proto__" broke it. */
const fromKeyedRates = (rates: unknown) =>
  rates !== null && typeof rates === "object" && !Array.isArray(rates)
    ? Object.entries(rates).map(([tool, counters]) => ({ ...(counters as object), tool }))
    : rates;

/**
 * Per-agent admission state: the run of identical calls and fixed-window rate counters per tool.
 * Counters are a list, never an object keyed by a tool name: any name a module chooses is safe.
 */
export const GuardState = z.object({
  seq: z.number().int().min(0),
  last: z.object({ fingerprint: z.string(), repeats: z.number().int() }).nullable(),
  rates: z.preprocess(fromKeyedRates, z.array(ToolRate)),
});
export type GuardState = z.infer<typeof GuardState>;

export const emptyGuardState = (): GuardState => ({ seq: 0, last: null, rates: [] });


/**
 * What the guard keeps per agent: its admission state, and a copy of the agent's token version and status, so
 * that the one conditional write admitting a call also proves the caller's token is still good.
 * Agents created before the copy existed have neither field until their first admission fills them in.
 */
export const GuardRecord = z.object({
  state: GuardState,
  tokenVersion: z.number().int().optional(),
  active: z.boolean().optional(),
});
export type GuardRecord = z.infer<typeof GuardRecord>;
