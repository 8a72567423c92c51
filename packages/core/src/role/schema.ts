import * as z from "zod";
import { Name } from "../tool/schema";
import { normaliseRoot, workspaceRootProblem } from "../policy/facts/path";

export const ROOT_ROLE_ID = "root";
export const ROOT_TOOL_GROUPS = ["org_management"] as const;

const RoleName = z.string().trim().min(1).max(100);
const RolePrompt = z.string().max(20_000);
const ToolGroups = z
  .array(Name)
  .max(200)
  .nullable()
  .transform((groups) => (groups === null ? null : [...new Set(groups)]));
/** An absolute directory the agents' paths are resolved against for argument policies, normalised. */
export const WorkspaceRoot = z
  .string()
  .superRefine((root, ctx) => {
    const problem = workspaceRootProblem(root);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform(normaliseRoot);

const LlmServiceId = z.string().min(1).max(200).nullable();

/** "all": every tool the role may call is in its agents' tool list; "search": only the pinned ones, with search_tools and call_tool. */
export const ToolLoading = z.enum(["all", "search"]);
export type ToolLoading = z.infer<typeof ToolLoading>;

/** Who its agents' questions (ask_user) go to: their own user when their MCP client can ask ("user"), or always an operator. */
export const Questions = z.enum(["user", "operator"]);
export type Questions = z.infer<typeof Questions>;

export const MAX_PINNED_TOOLS = 64;
const PinnedTools = z
  .array(Name)
  .max(MAX_PINNED_TOOLS)
  .transform((names) => [...new Set(names)]);

export const Role = z.object({
  id: z.string(),
  name: z.string(),
  rolePrompt: z.string(),
  toolGroups: z.array(z.string()).nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  status: z.enum(["active"]),
  llmServiceId: z.string().nullable(),
  toolLoading: ToolLoading.default("all"),
  pinnedTools: z.array(z.string()).default([]),
  workspaceRoot: z.string().nullable().default(null),
  questions: Questions.default("user"),
  version: z.number().int().min(1),
});
export type Role = z.infer<typeof Role>;

export const RoleInput = z.strictObject({
  name: RoleName,
  rolePrompt: RolePrompt.default(""),
  toolGroups: ToolGroups.optional(),
  llmServiceId: LlmServiceId.optional(),
  toolLoading: ToolLoading.optional(),
  pinnedTools: PinnedTools.optional(),
  workspaceRoot: WorkspaceRoot.nullable().optional(),
  questions: Questions.optional(),
});
export type RoleInput = z.infer<typeof RoleInput>;

export const RolePatch = z.strictObject({
  name: RoleName.optional(),
  rolePrompt: RolePrompt.optional(),
  toolGroups: ToolGroups.optional(),
  llmServiceId: LlmServiceId.optional(),
  toolLoading: ToolLoading.optional(),
  pinnedTools: PinnedTools.optional(),
  workspaceRoot: WorkspaceRoot.nullable().optional(),
  questions: Questions.optional(),
  version: z.number().int().min(1).optional(),
});
export type RolePatch = z.infer<typeof RolePatch>;

export const usesAllGroups = (role: Pick<Role, "toolGroups">) => role.toolGroups === null || role.toolGroups.length === 0;

/** The groups a role's agents may use, as the catalog loads them for it: every group, or the ones it names. */
export const groupsToLoad = (role: Pick<Role, "id" | "toolGroups">): readonly string[] | "all" =>
  role.id === ROOT_ROLE_ID ? ROOT_TOOL_GROUPS : usesAllGroups(role) ? "all" : role.toolGroups!;
