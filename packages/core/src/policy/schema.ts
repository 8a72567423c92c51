import * as z from "zod";
import { ToolPolicy } from "../tool/schema";

/** An admin's change to a tool's policy, kept in the catalog beside the tool's own definition. */
export const PolicyOverride = z.object({ policy: ToolPolicy.optional(), disabled: z.boolean().optional(), updatedAt: z.string() });
export type PolicyOverride = z.infer<typeof PolicyOverride>;

/** A PATCH of a policy: any of its fields, null removing one (JSON Merge Patch). */
export const PolicyPatch = z.partialRecord(ToolPolicy.keyof(), z.unknown());
export type PolicyPatch = z.infer<typeof PolicyPatch>;

/** Who a policy applies to: everyone, the agents of a department, of a role, or one agent. */
export const PolicyScope = z
  .string()
  .max(200)
  .regex(/^(system|department:.+|role:.+|agent:.+)$/, 'must be "system", "department:<name>", "role:<roleId>" or "agent:<agentId>"');
export type PolicyScope = z.infer<typeof PolicyScope>;

export const PolicyMode = z.enum(["enforce", "log_only"]);
export type PolicyMode = z.infer<typeof PolicyMode>;

export const PolicyEffect = z.enum(["deny", "ask", "allow"]);
export type PolicyEffect = z.infer<typeof PolicyEffect>;

export const POLICY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const PolicyId = z.string().regex(POLICY_ID_PATTERN, "must be 1-64 letters, digits, '_', '.' or '-'");

export const MAX_POLICY_BYTES = 64 * 1024;
export const MAX_POLICIES = 1000;

/** A rule in one line, as operators write opencode's permissions: a glob matched against each simple command, each path, or an argument. */
export const ShortRule = z.strictObject({
  tool: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be a tool name"),
  argument: z.string().min(1).max(128).optional(),
  match: z.string().min(1).max(4096),
  effect: PolicyEffect,
  reason: z.string().min(1).max(1000).optional(),
  /** The agent can succeed by changing what it sends (the reason says how). */
  recoverable: z.boolean().optional(),
});
export type ShortRule = z.infer<typeof ShortRule>;

const PolicyFields = {
  scope: PolicyScope,
  mode: PolicyMode.default("enforce"),
  description: z.string().max(1000).optional(),
};

/** PUT /policies/:id: either one Cedar policy or a short rule compiled to one. */
export const PolicyInput = z.union([
  z.strictObject({ ...PolicyFields, cedar: z.string().min(1) }),
  z.strictObject({ ...PolicyFields, rule: ShortRule }),
]);
export type PolicyInput = z.infer<typeof PolicyInput>;

/** Where in the catalog a policy can apply, read from its action constraint; "all" when it names no action. */
export type PolicyTargets = { tools: string[]; groups: string[] } | "all";

/** A policy as stored in the catalog, with what toolgate read from its Cedar text. */
export type StoredPolicy = {
  id: string;
  version: number;
  scope: PolicyScope;
  mode: PolicyMode;
  description?: string;
  effect: PolicyEffect;
  cedar: string;
  rule?: ShortRule;
  reason?: string;
  recoverable: boolean;
  targets: PolicyTargets;
  /** Its conditions read the call's context (arguments and the facts derived from them); one that does not decides whether a tool is listed. */
  readsArguments: boolean;
  /** Shipped with toolgate (editable like any other). */
  shipped?: true;
  createdAt: string;
  updatedAt: string;
};
