import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { ToolgateError } from "../error";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { ToolResult } from "./schema";
import type { Executor } from "./schema";

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type HttpCallPayload = { callId: string; tool: string; arguments: Record<string, unknown>; agentId: string; roleId: string };

/** One pool of kept-alive connections per process and protocol: a warm call to a module reuses its socket. */
const POOL = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: "lifo" as const };
const agents = { "http:": new HttpAgent(POOL), "https:": new HttpsAgent(POOL) };

const failed = (url: URL, reason: string) =>
  new ToolgateError(502, "executor_failed", `The tool's executor at ${url.origin} failed: ${reason}.`, { recoverable: false });

const tooLarge = (url: URL) => failed(url, `its result was larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);

const timedOut = (tool: string, timeoutMs: number) =>
  new ToolgateError(504, "tool_timeout", `The tool "${tool}" did not finish within ${timeoutMs} ms.`, { timeoutMs, recoverable: true });

/** POSTs the body and resolves with the response as soon as its head arrives; the body is read by readLimited. */
function post(url: URL, body: string, signal: AbortSignal): Promise<IncomingMessage> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: "POST",
      agent: agents[url.protocol as keyof typeof agents],
      signal,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), accept: "application/json", "user-agent": "toolgate" },
    });
    request.once("response", resolve);
    request.once("error", reject);
    request.end(body);
  });
}

/** The body as text, read chunk by chunk and abandoned as soon as it passes the limit: a huge answer never sits in memory. */
async function readLimited(response: IncomingMessage, url: URL): Promise<string> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
    response.destroy();
    throw tooLarge(url);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      response.destroy();
      throw tooLarge(url);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const reasonOf = (error: unknown) => {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  return cause instanceof Error && cause.message ? cause.message : "it could not be reached";
};

export async function runHttpExecutor(executor: Extract<Executor, { type: "http" }>, payload: HttpCallPayload, timeoutMs: number): Promise<ToolResult> {
  const url = new URL(executor.url);
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    const response = await post(url, JSON.stringify(payload), signal);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.resume();
      throw failed(url, `it answered HTTP ${status}`);
    }
    text = await readLimited(response, url);
  } catch (error) {
    if (error instanceof ToolgateError) throw error;
    if (signal.aborted) throw timedOut(payload.tool, timeoutMs);
    throw failed(url, reasonOf(error));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed(url, "it did not answer with JSON");
  }
  if (nestsDeeperThan(body)) throw failed(url, `its result nests more than ${MAX_JSON_DEPTH} levels deep`);
  const parsed = ToolResult.safeParse(body);
  if (!parsed.success) throw failed(url, 'it did not answer with a tool result { content: string, type?: "text" | "json" | "error" }');
  return parsed.data;
}
