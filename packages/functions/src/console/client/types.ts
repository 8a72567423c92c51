// The API's answers as the console reads them: the core's types (zod schemas) as JSON. Type imports only: nothing of
// the core is bundled into the browser script.
import type { PublicAgent } from "@toolgate/core/agent";
import type { AnswerToken as StoredAnswerToken } from "@toolgate/core/answer-token";
import type { CallRecord as StoredCall, CallStatus as StoredCallStatus } from "@toolgate/core/call";
import type { GroupSummary as CatalogGroup } from "@toolgate/core/group";
import type { ModuleState as StoredModuleState } from "@toolgate/core/module";
import type { CedarPolicyView, PolicyInput as StoredPolicyInput, Simulation as PolicySimulation, PolicyView as AdminPolicyView } from "@toolgate/core/policy";
import type { RoleTokens, RoleView, ToolLoading as RoleToolLoading } from "@toolgate/core/role";
import type { ToolDefinition, ToolSummary as CatalogTool } from "@toolgate/core/tool";
import type { ToolPolicy as StoredToolPolicy } from "@toolgate/core/policy";

export type ToolLoading = RoleToolLoading;
export type Role = RoleView & Partial<RoleTokens>;
export type GroupSummary = CatalogGroup & { tokens?: number };
export type ExecutorSummary = NonNullable<CatalogGroup["executor"]>;
export type ToolSummary = CatalogTool;
export type ToolPolicy = StoredToolPolicy;
export type PolicyView = AdminPolicyView & { definition?: ToolDefinition };
export type ModuleState = StoredModuleState;
export type Agent = PublicAgent;
export type AnswerToken = StoredAnswerToken;
export type CallStatus = StoredCallStatus;
export type CallRecord = StoredCall & { roleName?: string; agentName?: string };

export type Page<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };

export type CedarPolicy = CedarPolicyView;
export type PolicyProblem = CedarPolicy["problems"][number];
export type PolicyInput = StoredPolicyInput;
export type Simulation = PolicySimulation;
export type Flip = Simulation["flips"][number];
/** POST /policies/validate's answer: what the draft would be, never saved. */
export type PolicyCheck = { valid: boolean; effect?: CedarPolicy["effect"]; cedar: string; problems: PolicyProblem[] };
