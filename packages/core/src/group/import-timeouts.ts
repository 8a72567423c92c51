/** How long listing an MCP server's tools (or what else it offers) may take: a registration answers within API Gateway's 30 s. */
export const IMPORT_TIMEOUT_MS = 15_000;

/**
 * A stdio server's, whose first start may install it (`npx -y …` fetching a package): it only runs under `npm start`,
 * which no gateway's limit bounds.
 */
export const STDIO_IMPORT_TIMEOUT_MS = 120_000;
