let mcp: Promise<typeof import("./mcp")> | undefined;

/** The MCP executor and the SDK it uses load on the first MCP call or import, not at a cold start. */
export const loadMcp = () => (mcp ??= import("./mcp"));
