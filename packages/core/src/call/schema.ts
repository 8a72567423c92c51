import { z } from "zod";

export const CallStatus = z.enum([
  "awaiting_confirmation",
  "authorized",
  "running",
  "completed",
  "error",
  "timed_out",
  "denied",
  "expired",
  "refused",
]);
export type CallStatus = z.infer<typeof CallStatus>;

export const ClientResult = z.strictObject({
  content: z.string().max(5 * 1024 * 1024),
  type: z.enum(["text", "json", "error"]).default("text"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const CallRequest = z.strictObject({
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

export const CallRecord = z.object({
  callId: z.string(),
  agentId: z.string(),
  roleId: z.string(),
  tool: z.string(),
  group: z.string().nullable(),
  status: CallStatus,
  arguments: z.unknown(),
  argumentsTruncated: z.boolean().optional(),
  result: z
    .object({
      content: z.string(),
      type: z.enum(["text", "json", "error"]),
      metadata: z.record(z.string(), z.unknown()).optional(),
      truncated: z.boolean().optional(),
    })
    .optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  approvedBy: z.string().optional(),
  deniedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  startedAt: z.string(),
  deadline: z.string().optional(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional(),
});
export type CallRecord = z.infer<typeof CallRecord>;
