import * as z from "zod";

export const RoleId = z.string().min(1).max(128);
export const AgentId = z.string().min(1).max(128);
export const AgentName = z.string().min(1).max(100);
export const WorkspacePath = z.string().min(1).max(4096);
export const LongText = z.string().min(1).max(20_000);
