import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";

/** One pool of kept-alive connections per process and protocol, shared by the executors: a warm call to a module reuses its socket. */
const POOL = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: "lifo" as const };
const agents = { "http:": new HttpAgent(POOL), "https:": new HttpsAgent(POOL) };

export const agentFor = (url: URL) => agents[url.protocol as keyof typeof agents];
