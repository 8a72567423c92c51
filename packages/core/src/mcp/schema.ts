import * as z from "zod";

/** How toolgate serves agents over MCP; set from the environment (mcpSettings) or by tests. */
export const McpSettings = z.object({
  /** Tools per tools/list page. */
  pageSize: z.number().int().min(1).max(1_000),
  /** How long a client may reuse a tools/list page (2026-07-28 cache hint); the list is private to the caller. */
  listTtlMs: z.number().int().min(0),
  /** Hostnames a browser may send in Origin besides the service's own; anything else is refused with 403. */
  allowedOrigins: z.array(z.string().min(1)),
  /**
   * Whether responses reach the client as they are written (npm start; on AWS a function URL with response streaming),
   * not whole at the end (API Gateway): only then can a call put a request to a 2025-era client on its response.
   */
  streams: z.boolean(),
});
export type McpSettings = z.infer<typeof McpSettings>;

export const DEFAULT_MCP_SETTINGS: McpSettings = { pageSize: 100, listTtlMs: 30_000, allowedOrigins: [], streams: false };

/** What a tools/list cursor names: the agent, the role and catalog versions its list was cut from, and where the page starts. */
export const ListCursor = z.strictObject({
  agent: z.string(),
  role: z.number().int(),
  catalog: z.number().int(),
  offset: z.number().int().min(0),
  /** Which list the cursor pages, besides tools. */
  list: z.enum(["resources", "resourceTemplates", "prompts"]).optional(),
});
export type ListCursor = z.infer<typeof ListCursor>;
