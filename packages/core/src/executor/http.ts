import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { ToolgateError } from "../error";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json";
import { executorError } from "./errors";
import { agentFor } from "./pool";
import { ToolResult } from "./schema";
import { timedOut } from "./timeout";
import { environmentSecrets, resolveHeaders } from "./secrets";
import type { SecretSource } from "./secrets";
import type { HttpExecutor } from "./schema";
import type { CallTokens } from "./call-token";
import { scrubSecrets } from "../call/redact";

const NO_SECRETS = environmentSecrets({});

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type HttpCallPayload = { callId: string; tool: string; arguments: Record<string, unknown>; agentId: string; roleId: string; department?: string };

const failed = (url: URL, reason: string) =>
  executorError("executor_failed", `The tool's executor at ${url.origin} failed: ${reason}.`, { recoverable: false });

const tooLarge = (url: URL) => failed(url, `its result was larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);

const reasonOf = (error: unknown) => {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  return cause instanceof Error && cause.message ? cause.message : "it could not be reached";
};

/**
 * POSTs the body and reads the answer as it streams in: refused past the size limit (declared or counted), abandoned
 * at the deadline. Settles once; whatever happens after (a destroyed socket's error, a late chunk) is ignored.
 */
function exchange(url: URL, body: string, tool: string, timeoutMs: number, headers: Record<string, string>): Promise<string> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const fail = (error: ToolgateError) => settle(() => reject(error));
    const request = send(url, {
      method: "POST",
      agent: agentFor(url),
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), accept: "application/json", "user-agent": "toolgate" },
    });
    const deadline = setTimeout(() => {
      fail(timedOut(tool, timeoutMs));
      request.destroy();
    }, timeoutMs);
    request.once("error", (error) => fail(failed(url, reasonOf(error))));
    request.once("response", (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.resume();
        return fail(failed(url, `it answered HTTP ${status}`));
      }
      if (Number(response.headers["content-length"]) > MAX_RESPONSE_BYTES) {
        response.destroy();
        return fail(tooLarge(url));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size <= MAX_RESPONSE_BYTES) return void chunks.push(chunk);
        response.destroy();
        fail(tooLarge(url));
      });
      response.once("end", () => settle(() => resolve(Buffer.concat(chunks).toString("utf8"))));
      response.once("error", (error) => fail(failed(url, reasonOf(error))));
      response.once("close", () => {
        if (!settled) fail(failed(url, "the connection closed before its answer ended"));
      });
    });
    request.end(body);
  });
}

/**
 * What else a request carries: the executor's secrets to read its headers with, and the call token. `admitted`: the
 * call's admission, awaited once the request is built and before it is sent (see RunOptions).
 */
export type HttpRequestOptions = { secrets?: SecretSource; callToken?: CallTokens; admitted?: Promise<void> };

/**
 * POSTs the call to the executor, with its headers (secret references read now) and the call token, and reads its
 * tool result; anything the executor echoes of a secret header is cut out of the result.
 */
export async function runHttpExecutor(executor: HttpExecutor, payload: HttpCallPayload, timeoutMs: number, options: HttpRequestOptions = {}): Promise<ToolResult> {
  const url = new URL(executor.url);
  const { headers, secrets } = await resolveHeaders(executor.headers, options.secrets ?? NO_SECRETS, url.origin);
  const request = JSON.stringify(payload);
  const sent = { ...headers, ...options.callToken?.() };
  await options.admitted;
  const text = await exchange(url, request, payload.tool, timeoutMs, sent);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed(url, "it did not answer with JSON");
  }
  if (nestsDeeperThan(body)) throw failed(url, `its result nests more than ${MAX_JSON_DEPTH} levels deep`);
  const parsed = ToolResult.safeParse(body);
  if (!parsed.success) throw failed(url, 'it did not answer with a tool result { content: string, type?: "text" | "json" | "error" }');
  return secrets.length === 0 ? parsed.data : scrubSecrets(parsed.data, secrets);
}
