import * as z from "zod";

export const HttpExecutor = z.strictObject({
  type: z.literal("http"),
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  timeoutMs: z.number().int().min(1).max(900_000).optional(),
});
export const ClientExecutor = z.strictObject({ type: z.literal("client") });
export const NativeExecutor = z.strictObject({ type: z.literal("native") });
export const Executor = z.discriminatedUnion("type", [HttpExecutor, ClientExecutor, NativeExecutor]);
export type Executor = z.infer<typeof Executor>;

/** What every way of running a tool hands back, and what a client-executed call's runtime reports. */
export const ToolResult = z.object({
  content: z.string(),
  type: z.enum(["text", "json", "error"]).default("text"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type ToolResult = z.infer<typeof ToolResult>;
