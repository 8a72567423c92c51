import { lookup } from "node:dns/promises";
import { createServer, request } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { isInternalAddress } from "./address";

/** The ports a sandboxed command may reach a named host on: plain HTTP and HTTPS. */
const PORTS = new Set([80, 443]);
/** Headers meant for the proxy or for one hop, not passed on to the host. */
const HOP_HEADERS = /^(proxy-.*|connection|keep-alive|te|trailer|transfer-encoding|upgrade)$/i;

export type Proxy = { close(): Promise<void> };

class Refused extends Error {}

const hostName = (host: string) => host.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();

/**
 * Where a sandboxed command may connect: a host the operator named, on port 80 or 443, at an address its name
 * resolves to that is not internal (so never this machine's loopback, whatever DNS answers). The address itself is
 * returned and connected to, so a second lookup cannot answer differently.
 */
async function admit(hosts: ReadonlySet<string>, host: string, port: number): Promise<string> {
  const name = hostName(host);
  if (!hosts.has(name))
    throw new Refused(`${name} is not a host this sandbox may reach (${[...hosts].join(", ")}): the operator names them with --allow-host.`);
  if (!PORTS.has(port)) throw new Refused(`port ${port} of ${name} may not be reached: only ports 80 and 443 are.`);
  const addresses = await lookup(name, { all: true }).catch(() => {
    throw new Refused(`${name} does not resolve.`);
  });
  const reachable = addresses.find(({ address }) => !isInternalAddress(address));
  if (!reachable)
    throw new Refused(`${name} resolves to ${addresses.map(({ address }) => address).join(", ")}, which is this machine or a private network: never reached from the sandbox.`);
  return reachable.address;
}

const refusalText = (error: unknown) => `The sandbox's proxy refused: ${error instanceof Refused ? error.message : "the host could not be reached."}\n`;

/** A CONNECT request's target, `host:port` (an IPv6 address in brackets); the port is required. */
const AUTHORITY = /^(\[[^\]]+\]|[^:]+):(\d+)$/;

const rawAnswer = (status: string, body: string) =>
  `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;

async function tunnel(hosts: ReadonlySet<string>, incoming: IncomingMessage, client: Socket, head: Buffer) {
  try {
    const [, host = "", port = ""] = AUTHORITY.exec(incoming.url ?? "") ?? [];
    if (!host) throw new Refused(`CONNECT names host:port; got "${incoming.url}".`);
    const address = await admit(hosts, host, Number(port));
    const upstream = connect(Number(port), address);
    let established = false;
    upstream.once("connect", () => {
      established = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => (established ? client.destroy() : client.end(rawAnswer("502 Bad Gateway", refusalText(undefined)))));
    client.on("close", () => upstream.destroy());
  } catch (error) {
    client.end(rawAnswer("403 Forbidden", refusalText(error)));
  }
}

async function forward(hosts: ReadonlySet<string>, incoming: IncomingMessage, answer: ServerResponse) {
  try {
    const target = URL.canParse(incoming.url ?? "") ? new URL(incoming.url!) : undefined;
    if (target?.protocol !== "http:") throw new Refused("only absolute http:// requests and CONNECT are proxied.");
    const port = Number(target.port || 80);
    const address = await admit(hosts, target.hostname, port);
    const headers = Object.fromEntries(Object.entries(incoming.headers).filter(([name]) => !HOP_HEADERS.test(name)));
    const outgoing = request({ host: address, port, method: incoming.method, path: `${target.pathname}${target.search}`, headers: { ...headers, host: target.host }, setHost: false }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    });
    outgoing.on("error", () => answer.destroy());
    incoming.pipe(outgoing);
  } catch (error) {
    answer.writeHead(error instanceof Refused ? 403 : 502, { "content-type": "text/plain" }).end(refusalText(error));
  }
}

/**
 * An HTTP proxy on a unix socket (bound into the sandbox, so only sandboxed commands reach it) that connects only to
 * the named hosts: CONNECT for HTTPS, absolute-form requests for plain HTTP.
 */
export async function startProxy(socketPath: string, allowedHosts: readonly string[]): Promise<Proxy> {
  const hosts = new Set(allowedHosts.map(hostName));
  const server = createServer((incoming, answer) => void forward(hosts, incoming, answer));
  const tunnels = new Set<Socket>();
  server.on("connect", (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.add(client);
    client.on("error", () => client.destroy()).on("close", () => tunnels.delete(client));
    void tunnel(hosts, incoming, client, head);
  });
  await new Promise<void>((listening, failed) => server.once("error", failed).listen(socketPath, () => listening()));
  return {
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
        tunnels.forEach((client) => client.destroy());
      }),
  };
}
