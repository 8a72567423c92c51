import * as z from "zod";
import { PageQuery } from "../call/schema";
import { WorkspaceRoot } from "../role/schema";

export const ROOT_AGENT_ID = "root";

export const Agent = z.object({
  id: z.string(),
  roleId: z.string(),
  name: z.string(),
  status: z.enum(["active", "terminated"]),
  department: z.string().nullable(),
  level: z.number().int().nullable(),
  /** Narrows the role's workspace root for this agent (argument policies resolve its paths against it). */
  workspaceRoot: z.string().nullable().default(null),
  createdBy: z.string(),
  createdAt: z.string(),
  terminatedAt: z.string().optional(),
  tokenVersion: z.number().int().min(1),
  /** When the agent's current token expires (TOOLGATE_AGENT_TOKEN_DAYS after it was issued); absent before tokens expired. */
  tokenExpiresAt: z.string().optional(),
});
export type Agent = z.infer<typeof Agent>;

export const AgentInput = z.strictObject({
  roleId: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(100).optional(),
  department: z.string().trim().min(1).max(100).optional(),
  level: z.number().int().min(0).max(1000).optional(),
  workspaceRoot: WorkspaceRoot.optional(),
});

export type AgentInput = z.infer<typeof AgentInput>;

export type PublicAgent = Omit<Agent, "tokenVersion">;

export const publicAgent = ({ tokenVersion: _tokenVersion, ...agent }: Agent): PublicAgent => agent;

/** GET /agents: a page of agents, newest first, optionally of one role and one status. */
export const AgentListQuery = PageQuery.extend({
  roleId: z.string().min(1).max(100).optional(),
  status: z.enum(["active", "terminated"]).optional(),
});
export type AgentListQuery = z.infer<typeof AgentListQuery>;
