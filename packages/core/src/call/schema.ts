import * as z from "zod";
import { GroupScope } from "../scope/schema";

export const CallStatus = z.enum([
  "awaiting_confirmation",
  "awaiting_answer",
  "authorized",
  "running",
  "completed",
  "error",
  "timed_out",
  "denied",
  "expired",
  "refused",
  "cancelled",
]);
export type CallStatus = z.infer<typeof CallStatus>;

export const ClientResult = z.strictObject({
  content: z.string().max(5 * 1024 * 1024),
  type: z.enum(["text", "json", "error"]).default("text"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export type ClientResult = z.infer<typeof ClientResult>;

export const CallRequest = z.strictObject({
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type CallRequest = z.infer<typeof CallRequest>;

const Verdict = z.object({ effect: z.enum(["deny", "ask", "allow", "none"]), policies: z.array(z.string()) });

/** What the Cedar policies decided about a call, at which revision of the policy set, and what log-only ones would have made it. */
export const PolicyDecisionRecord = Verdict.extend({ revision: z.number().int(), logOnly: Verdict.optional() });

/** One content block of an MCP server's answer, as a call record keeps it: what it was, never its data. */
export const McpBlockSummary = z.object({
  type: z.string(),
  mimeType: z.string().optional(),
  /** The block's size: its text in UTF-8 or its base64 data decoded; a resource link's size as the server declared it. */
  bytes: z.number().int().optional(),
  uri: z.string().optional(),
});

/** What a call record keeps of an MCP server's whole answer, besides its text: its blocks described, bounded in number. */
export const McpResultSummary = z.object({
  blocks: z.array(McpBlockSummary),
  /** Blocks past the first ones, counted but not described. */
  moreBlocks: z.number().int().optional(),
  structuredContent: z.literal(true).optional(),
});
export type McpResultSummary = z.infer<typeof McpResultSummary>;

export const StoredResult = z.object({
  content: z.string(),
  type: z.enum(["text", "json", "error"]),
  metadata: z.record(z.string(), z.unknown()).optional(),
  truncated: z.boolean().optional(),
  mcp: McpResultSummary.optional(),
});
export type StoredResult = z.infer<typeof StoredResult>;

/** What a call used: a tool (a record without `kind`, as every record before resources and prompts), a resource read or a prompt get. */
export const CallKind = z.enum(["tool", "resource", "prompt"]);
export type CallKind = z.infer<typeof CallKind>;

export const CallRecord = z.object({
  callId: z.string(),
  agentId: z.string(),
  roleId: z.string(),
  /** The tool; for a resource read "resources/read" (the URI in its arguments), for a prompt get the prompt's name. */
  tool: z.string(),
  /** Stored only for a resource read or a prompt get; answers name a tool's call "tool". */
  kind: z.enum(["resource", "prompt"]).optional(),
  group: z.string().nullable(),
  /** The scope of the group whose tool ran: a department's or an agent's own tool in front of everyone's is named so. */
  scope: GroupScope.optional(),
  status: CallStatus,
  arguments: z.unknown(),
  argumentsTruncated: z.boolean().optional(),
  result: StoredResult.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  decision: PolicyDecisionRecord.optional(),
  approvedBy: z.string().optional(),
  /** Who answered a question (ask_user): "admin", the answering token's id, or "user" (the agent's own user over MCP). */
  answeredBy: z.string().optional(),
  /** The answering token's name when one answered, as it was then (the token may be revoked since). */
  answeredByName: z.string().optional(),
  /** Who a question (ask_user) is put to: the agent's own user through its MCP client, else (absent) an operator. */
  askedOf: z.literal("user").optional(),
  /** A module's question: the call during which the module (an MCP server) asked it. */
  askedFor: z.string().optional(),
  /**
   * A running call whose MCP server asked the agent's own client for input (2026-07-28's input round trip): how many
   * times it has gone on with the client's answers. Each pause is answered once.
   */
  inputRound: z.number().int().nonnegative().optional(),
  deniedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  startedAt: z.string(),
  deadline: z.string().optional(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional(),
});
export type CallRecord = z.infer<typeof CallRecord>;

export const MAX_PAGE = 100;

/** A page of a list: at most `limit` (1-100, 20 by default) items after the cursor the previous page handed out. */
export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(20),
  cursor: z.string().min(1).max(2048).optional(),
});

/**
 * A call's life, as data: every change of a call record is a transition from the status it must still have
 * (null: the record is new) to the next record. Storage applies one only if the record is still `from`.
 */
export type Transition = { from: CallStatus | null; to: CallRecord };

/** GET /agents/:id/calls: a page of the agent's calls, newest first, optionally of one status and one tool. */
export const CallHistoryQuery = PageQuery.extend({
  status: CallStatus.optional(),
  tool: z.string().min(1).max(200).optional(),
});
export type CallHistoryQuery = z.infer<typeof CallHistoryQuery>;

/** GET /calls?status=: the approval queue (awaiting_confirmation) or the questions queue (awaiting_answer), across every agent, oldest first. */
export const ApprovalQueueQuery = PageQuery.extend({ status: z.enum(["awaiting_confirmation", "awaiting_answer"]) });

/** A call in the approval queue, with the names an admin recognises it by. */
export const QueuedCall = CallRecord.extend({ agentName: z.string().nullable(), roleName: z.string().nullable() });
export type QueuedCall = z.infer<typeof QueuedCall>;
