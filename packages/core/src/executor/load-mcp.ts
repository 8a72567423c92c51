let mcp: Promise<typeof import("./mcp")> | undefined;

/** The MCP executor and the SDK it uses load on the first MCP call or import, not at a cold start. */
export const loadMcp = () => (mcp ??= import("./mcp"));

let offers: Promise<typeof import("./mcp-resources")> | undefined;

/** Resources, prompts and completions of MCP servers load on their first use, as the executor does. */
export const loadMcpOffers = () => (offers ??= import("./mcp-resources"));

/** Closes the MCP executor's connections and releases its held calls, if it was ever loaded (a process's shutdown). */
export async function closeMcpExecutor() {
  if (mcp) await (await mcp).closeMcpConnections();
}
