import * as z from "zod";
import { GroupScope } from "../scope/schema";
import { Executor } from "../executor/schema";
import { Name, ToolDefinition } from "../tool/schema";

const Version = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const ModuleRef = z.object({ module: Name, version: Version });

export const ModuleLoaded = z.strictObject({
  module: Name,
  version: Version,
  toolGroupId: Name.optional(),
  description: z.string(),
  /** Left out when the executor is an MCP server: its tools are imported from it. */
  tools: z.array(ToolDefinition).optional(),
  executor: Executor.optional(),
  /** Who the group's tools are for: everyone (the default), "department:<name>" or "agent:<agentId>". */
  scope: GroupScope.optional(),
});
export type ModuleLoaded = z.infer<typeof ModuleLoaded>;

export const ModuleUnloaded = z.strictObject({
  module: Name,
  version: Version,
  toolGroupId: Name.optional(),
});
export type ModuleUnloaded = z.infer<typeof ModuleUnloaded>;

export const ModuleState = z.object({
  module: z.string(),
  version: z.number().int(),
  status: z.enum(["loaded", "unloaded", "rejected"]),
  groupId: z.string(),
  reason: z
    .object({ error: z.string(), message: z.string() })
    .catchall(z.unknown())
    .optional(),
  lastEventId: z.string().optional(),
  updatedAt: z.string(),
});
export type ModuleState = z.infer<typeof ModuleState>;
