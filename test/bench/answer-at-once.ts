import { serveJson } from "./support";

type Message = { id?: string | number; method?: string; params?: { protocolVersion?: string; arguments?: unknown } };

/**
 * The answer of an MCP server that does nothing: the handshake, and a tools/call answered at once with its arguments
 * as text (what the bench's echo tool answers). A notification gets none.
 */
export function answerAtOnce(message: Message) {
  if (message.id === undefined) return undefined;
  const result =
    message.method === "initialize"
      ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "answer-at-once", version: "1.0.0" } }
      : message.method === "tools/call"
        ? { content: [{ type: "text", text: JSON.stringify(message.params?.arguments ?? {}) }] }
        : {};
  return { jsonrpc: "2.0", id: message.id, result };
}

/** That server over Streamable HTTP (JSON answers, no session, no stream), on node:http; `url` is its endpoint. */
export async function startAnswerAtOnceHttp() {
  const served = await serveJson((method, body) => {
    if (method !== "POST") return { status: 405 };
    const answer = answerAtOnce((body ?? {}) as Message);
    return answer ? { status: 200, body: answer } : { status: 202 };
  });
  return { ...served, url: `${served.url}/mcp` };
}

/** The same server over stdio, as its own process (as mcp-remote runs): `node --import tsx` this module's script. */
export const ANSWER_AT_ONCE_STDIO = new URL("./answer-at-once-stdio.ts", import.meta.url);
