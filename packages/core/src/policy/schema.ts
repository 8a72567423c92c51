import * as z from "zod";
import { Scope } from "../scope/schema";

/** The longest a tool may run (a Lambda's own limit). */
export const MAX_TOOL_TIMEOUT_MS = 900_000;

/** A tool's own policy (its definition's `x-toolgate`): how the guard treats its calls. */
export const ToolPolicy = z.strictObject({
  timeoutMs: z.number().int().min(1).max(MAX_TOOL_TIMEOUT_MS).optional(),
  dangerous: z.boolean().optional(),
  requireConfirmation: z.boolean().optional(),
  /** Hints for MCP clients (readOnlyHint, idempotentHint, openWorldHint); toolgate's policy owns them, not the module. */
  readOnly: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  openWorld: z.boolean().optional(),
  rateLimit: z
    .strictObject({
      perMinute: z.number().int().min(1).optional(),
      perHour: z.number().int().min(1).optional(),
    })
    .optional(),
  /** The most identical calls in a row (same tool, same arguments) that run; 0 switches the doom-loop check off. */
  repeatLimit: z.number().int().min(0).max(1000).optional(),
  allowedRoles: z.array(z.string().min(1)).optional(),
  allowedDepartments: z.array(z.string().min(1)).optional(),
  minLevel: z.number().int().min(0).optional(),
  strict: z.boolean().optional(),
  /** Top-level arguments that name a path (or a list of paths), resolved against the workspace root for argument policies; `"format": "path"` says the same. */
  pathArguments: z.array(z.string().min(1).max(128)).max(32).optional(),
  /** Top-level arguments that hold a shell command line, split into its simple commands for argument policies. */
  commandArguments: z.array(z.string().min(1).max(128)).max(32).optional(),
  category: z.string().max(64).optional(),
  tags: z.array(z.string().max(64)).max(32).optional(),
});
export type ToolPolicy = z.infer<typeof ToolPolicy>;

/** An admin's change to a tool's policy, kept in the catalog beside the tool's own definition. */
export const PolicyOverride = z.object({ policy: ToolPolicy.optional(), disabled: z.boolean().optional(), updatedAt: z.string() });
export type PolicyOverride = z.infer<typeof PolicyOverride>;

/** A PATCH of a policy: any of its fields, null removing one (JSON Merge Patch). */
export const PolicyPatch = z.partialRecord(ToolPolicy.keyof(), z.unknown());
export type PolicyPatch = z.infer<typeof PolicyPatch>;

/** Who a policy applies to: everyone, the agents of a department, of a role, or one agent. */
export const PolicyScope = Scope;
export type PolicyScope = Scope;

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

/** What evaluating a policy needs: the context attributes its conditions name (or all), and the entities or not. */
export type PolicyReads = { context: string[] | "all"; entities: boolean };

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
  /** An ask that gives way to an allow policy matching the same simple command or path (`@unlessAllowed("true")`). */
  unlessAllowed?: true;
  targets: PolicyTargets;
  /** What its conditions read; one that reads no context (no argument) decides whether a tool is listed at all. */
  reads: PolicyReads;
  /** Shipped with toolgate (editable like any other). */
  shipped?: true;
  createdAt: string;
  updatedAt: string;
};
