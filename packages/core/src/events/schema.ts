import * as z from "zod";
import { CallStatus } from "../call/schema";
import { ToolgateEventType } from "./types";

/** A call that waits for an admin: who asked for which tool, and until when. Never its arguments. */
export const AwaitingConfirmation = z.object({
  callId: z.string(),
  agentId: z.string(),
  roleId: z.string(),
  tool: z.string(),
  group: z.string().nullable(),
  startedAt: z.string(),
  deadline: z.string(),
  /** Where an admin answers it, relative to toolgate's URL. */
  approve: z.string(),
  deny: z.string(),
});
export type AwaitingConfirmation = z.infer<typeof AwaitingConfirmation>;

/**
 * A question waiting for a person: an agent's (ask_user: the answers to choose from) or a module's during a call (its
 * form, `askedFor` the call), what to ask, and where to answer it.
 */
export const QuestionAsked = z.object({
  callId: z.string(),
  agentId: z.string(),
  roleId: z.string(),
  question: z.string(),
  options: z.array(z.string()).optional(),
  multiple: z.boolean(),
  /** A module's form (MCP elicitation's requestedSchema): answered with `content`, a value per field. */
  form: z.record(z.string(), z.unknown()).optional(),
  askedFor: z.string().optional(),
  startedAt: z.string(),
  deadline: z.string(),
  /** Where an operator (or a chat bot on the bus, with an answering token) answers it, relative to toolgate's URL. */
  answer: z.string(),
});
export type QuestionAsked = z.infer<typeof QuestionAsked>;

export const SettledStatus = CallStatus.extract(["completed", "error", "timed_out", "denied", "expired", "refused", "cancelled"]);
export type SettledStatus = z.infer<typeof SettledStatus>;

/** A call that reached its end: which tool, how it ended and how long it took. Never its arguments or its result. */
export const CallSettled = z.object({
  callId: z.string(),
  agentId: z.string(),
  roleId: z.string(),
  tool: z.string(),
  group: z.string().nullable(),
  status: SettledStatus,
  /** The machine code of a refusal or failure (e.g. rate_limited, denied, tool_timeout); its message is left out. */
  errorCode: z.string().optional(),
  /** Who answered a question (ask_user): "admin", an answering token's id (with its name), or "user". */
  answeredBy: z.string().optional(),
  answeredByName: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number().nonnegative(),
});
export type CallSettled = z.infer<typeof CallSettled>;

/** A new agent, with the task it was spawned with (if any): what an agent runtime needs to start it. */
export const AgentSpawned = z.object({
  agentId: z.string(),
  roleId: z.string(),
  name: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  task: z.string().optional(),
  /** The message that carries the task to the agent (GET /agents/:id/messages). */
  messageId: z.string().optional(),
});
export type AgentSpawned = z.infer<typeof AgentSpawned>;

export const AgentTerminated = z.object({
  agentId: z.string(),
  roleId: z.string(),
  name: z.string(),
  terminatedAt: z.string(),
});
export type AgentTerminated = z.infer<typeof AgentTerminated>;

export const RoleChange = z.enum(["created", "updated", "deleted"]);

export const RoleChanged = z.object({
  roleId: z.string(),
  name: z.string(),
  change: RoleChange,
  /** The role's version after the change (for deleted: the last one it had). */
  version: z.number().int(),
  /** null: every group. */
  toolGroups: z.array(z.string()).nullable(),
  at: z.string(),
});
export type RoleChanged = z.infer<typeof RoleChanged>;

export const GroupChange = z.enum(["registered", "updated", "unregistered"]);

export const GroupChanged = z.object({
  groupId: z.string(),
  change: GroupChange,
  /** Who registered it: api or module (built-in groups registered at start are not announced). */
  source: z.string().optional(),
  module: z.string().optional(),
  /** Its tools' names after the change (none once unregistered). */
  tools: z.array(z.string()),
  /** The catalog version the change committed at. */
  catalogVersion: z.number().int(),
});
export type GroupChanged = z.infer<typeof GroupChanged>;

export const PolicyChanged = z.object({
  policyId: z.string(),
  change: RoleChange,
  /** The policy's version after the change (for deleted: the last one it had). */
  version: z.number().int(),
  scope: z.string(),
  mode: z.enum(["enforce", "log_only"]),
  effect: z.enum(["deny", "ask", "allow"]),
  /** The policy set's revision (the catalog version) the change committed at. */
  revision: z.number().int(),
  at: z.string(),
});
export type PolicyChanged = z.infer<typeof PolicyChanged>;

/** A change of the catalog made a stored policy invalid: it still fails closed, and GET /policies shows its problems. */
export const PolicyInvalidated = z.object({
  policyId: z.string(),
  problems: z.array(z.string()),
  revision: z.number().int(),
});
export type PolicyInvalidated = z.infer<typeof PolicyInvalidated>;

/** Each detail type's schema: what a subscriber can rely on. */
export const EVENT_DETAILS = {
  [ToolgateEventType.AwaitingConfirmation]: AwaitingConfirmation,
  [ToolgateEventType.QuestionAsked]: QuestionAsked,
  [ToolgateEventType.CallSettled]: CallSettled,
  [ToolgateEventType.AgentSpawned]: AgentSpawned,
  [ToolgateEventType.AgentTerminated]: AgentTerminated,
  [ToolgateEventType.RoleChanged]: RoleChanged,
  [ToolgateEventType.GroupChanged]: GroupChanged,
  [ToolgateEventType.PolicyChanged]: PolicyChanged,
  [ToolgateEventType.PolicyInvalidated]: PolicyInvalidated,
} as const;

type Details = { [K in keyof typeof EVENT_DETAILS]: z.infer<(typeof EVENT_DETAILS)[K]> };

/** One event as toolgate publishes it: its detail type and its detail. */
export type ToolgateEvent = { [K in keyof Details]: { type: K; detail: Details[K] } }[keyof Details];
