import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { Socket } from "node:net";

/** One pool of kept-alive connections per process and protocol, shared by the executors: a warm call to a module reuses its socket. */
const POOL = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: "lifo" as const };

/**
 * How long an idle socket is kept for reuse: less than the 5 s Node's servers (and many others) keep one, as undici's
 * fetch does (4 s), so a request does not go out on a socket the server is closing at that moment.
 */
const IDLE_SOCKET_MS = 4_000;

/** An agent whose idle sockets go after IDLE_SOCKET_MS (Node 20 keeps them until the server closes them); a reused one has no timeout. */
function closingIdleSockets<A extends HttpAgent>(agent: A): A {
  const keep = agent.keepSocketAlive.bind(agent);
  const reuse = agent.reuseSocket.bind(agent);
  agent.keepSocketAlive = (socket: Socket) => {
    const kept = keep(socket) as unknown as boolean;
    if (kept) socket.setTimeout(IDLE_SOCKET_MS);
    return kept;
  };
  agent.reuseSocket = (socket, request) => {
    (socket as Socket).setTimeout(0);
    reuse(socket, request);
  };
  return agent;
}

const agents = { "http:": closingIdleSockets(new HttpAgent(POOL)), "https:": closingIdleSockets(new HttpsAgent(POOL)) };

export const agentFor = (url: URL) => agents[url.protocol as keyof typeof agents];
