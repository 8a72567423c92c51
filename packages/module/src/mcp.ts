/** How a module serves its tools over MCP. */
export type McpOptions = {
  /**
   * Run a tools/call only when toolgate signed it for this module, tool and arguments (else 401): for a module
   * registered with toolgate as an `mcp` executor that no one else may call. Off by default, so any MCP client can
   * call the tools directly.
   */
  signedCallsOnly?: boolean;
  /** The endpoint's URL as toolgate calls it, which its tokens are issued for; by default the URL a request arrived at. */
  url?: string;
};

/** An MCP endpoint over Streamable HTTP: a web-standard handler, and what closes calls still running. */
export type McpEndpoint = {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
};

/** Where a request's verified call rides from the endpoint's check to its tools/call handler (the MCP SDK's authInfo.extra). */
export const SIGNED_CALL_KEY = "toolgate/call";

/** Who calls when no toolgate signed the call (an MCP client of its own, which names no agent): `ctx.agent` then. */
export const ANONYMOUS_AGENT = { id: "anonymous", role: "anonymous" } as const;
