import { createServer, request as forward } from "node:http";
import type { AddressInfo } from "node:net";

export type BearerProxy = { url: string; close(): Promise<void> };

/**
 * A loopback endpoint that forwards every request to `target` with `Authorization: Bearer <token>` added, streaming
 * both ways: what an MCP client's configured header does, for a client that cannot be given one (the conformance
 * suite's CLI takes only a URL). Every other header goes as the client sent it, `Host` and `Origin` included, so
 * toolgate sees the request the client made.
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const destination = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${token}` };
    const upstream = forward(destination, { method: incoming.method, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`The proxy could not reach ${destination.origin}: ${error.message}`);
    });
    incoming.pipe(upstream);
    // A client that leaves ends its request upstream too: a stream it held open (GET /mcp, a listen) must not outlive it.
    outgoing.on("close", () => upstream.destroy());
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${destination.pathname}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
