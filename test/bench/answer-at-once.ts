import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

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

/** That server over Streamable HTTP (JSON answers, no session, no stream), on node:http. */
export async function startAnswerAtOnceHttp() {
  const server = createServer((request, response) => {
    if (request.method !== "POST") return void response.writeHead(405).end();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const answer = answerAtOnce(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message);
      if (!answer) return void response.writeHead(202).end();
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** The same server over stdio, as its own process (as mcp-remote runs): `node --import tsx` this module's script. */
export const ANSWER_AT_ONCE_STDIO = new URL("./answer-at-once-stdio.ts", import.meta.url);
