// The API's answers as the console reads them (the server's zod schemas are the source; these are their JSON).

export type ToolLoading = "all" | "search";

export type Role = {
  id: string;
  name: string;
  rolePrompt: string;
  toolGroups: string[] | null;
  effectiveToolGroups?: string[];
  toolLoading?: ToolLoading;
  pinnedTools?: string[];
  version: number;
  createdBy?: string;
  createdAt?: string;
  updatedAt: string;
  toolTokens?: number;
  loadingTokens?: { all: number; searchTools: number };
};

export type ExecutorSummary = { type: string; url?: string };

export type GroupSummary = {
  id: string;
  description: string;
  toolCount: number;
  tools: string[];
  reserved: boolean;
  source: string;
  module?: string;
  executor?: ExecutorSummary;
  updatedAt: string;
  tokens?: number;
};

export type ToolSummary = { name: string; group: string; description: string; category: string | null; tags: string[]; disabled: boolean; tokens: number };

export type ToolPolicy = {
  timeoutMs?: number;
  dangerous?: boolean;
  requireConfirmation?: boolean;
  readOnly?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
  rateLimit?: { perMinute?: number; perHour?: number };
  repeatLimit?: number;
  allowedRoles?: string[];
  allowedDepartments?: string[];
  minLevel?: number;
  strict?: boolean;
  category?: string;
  tags?: string[];
};

export type PolicyView = {
  name: string;
  group: string;
  policy: ToolPolicy & { disabled: boolean };
  override: { policy?: ToolPolicy; disabled?: boolean; updatedAt: string } | null;
  definition?: { function: { name: string; description: string; parameters: unknown } };
};

export type ModuleState = {
  module: string;
  version: number;
  status: "loaded" | "unloaded" | "rejected";
  groupId: string;
  reason?: { error: string; message: string };
  updatedAt: string;
};

export type Agent = {
  id: string;
  roleId: string;
  name: string;
  status: "active" | "terminated";
  department: string | null;
  level: number | null;
  createdBy: string;
  createdAt: string;
  terminatedAt?: string;
};

export const CALL_STATUSES = ["awaiting_confirmation", "authorized", "running", "completed", "error", "timed_out", "denied", "expired", "refused"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export type CallRecord = {
  callId: string;
  agentId: string;
  roleId: string;
  roleName?: string;
  agentName?: string;
  tool: string;
  group: string | null;
  status: CallStatus;
  arguments: unknown;
  argumentsTruncated?: boolean;
  result?: { content: string; type: string; truncated?: boolean };
  error?: { code: string; message: string };
  approvedBy?: string;
  deniedBy?: string;
  decidedAt?: string;
  startedAt: string;
  deadline?: string;
  finishedAt?: string;
  durationMs?: number;
};

export type Page<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };
