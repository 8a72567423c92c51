/**
 * One tools/call as a 2026-07-28 client posts it to `<url>/mcp` (its headers and request envelope, declaring
 * `capabilities`), with any round-trip fields (`inputResponses`, `requestState`) in `params`; the JSON-RPC answer.
 */
export async function postToolCall(url: string, token: string, params: Record<string, unknown> & { name: string }, capabilities: Record<string, unknown> = {}, id = 1) {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": params.name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "raw-client", version: "1.0.0" },
        },
      },
    }),
  });
  return (await response.json()) as { result: Record<string, unknown> & { _meta?: Record<string, unknown> } };
}
