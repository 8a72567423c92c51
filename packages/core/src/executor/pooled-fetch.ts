import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { agentFor } from "./pool";

/** Answers that carry no body, whatever their headers say (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const DECODERS: Record<string, () => Transform> = { gzip: createGunzip, "x-gzip": createGunzip, deflate: createInflate, br: createBrotliDecompress };
const ACCEPT_ENCODING = "gzip, deflate, br";

/** An answer's body went past the bytes its reader takes: it is not read further. */
export class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`its answer was larger than ${maxBytes / 1024 / 1024} MiB`);
    this.name = "AnswerTooLarge";
  }
}

/**
 * The answer's body as a web stream, read as it arrives: paused while its reader is behind, destroyed if its reader
 * cancels, and ended with AnswerTooLarge (its connection destroyed) once it passes maxBytes.
 */
function webBody(source: Readable, maxBytes: number): ReadableStream<Uint8Array> {
  let settled = false;
  let received = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const settle = (end: () => void) => {
        if (settled) return;
        settled = true;
        end();
      };
      source.on("data", (chunk: Buffer) => {
        if (settled) return;
        received += chunk.byteLength;
        if (received > maxBytes) {
          settle(() => controller.error(new AnswerTooLarge(maxBytes)));
          return void source.destroy();
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once("end", () => settle(() => controller.close()));
      source.once("error", (error) => settle(() => controller.error(error)));
      source.once("close", () => settle(() => controller.error(new Error("the connection closed before the answer ended"))));
    },
    pull() {
      source.resume();
    },
    cancel() {
      settled = true;
      source.destroy();
    },
  });
}

function decoded(response: IncomingMessage): Readable {
  const decoder = DECODERS[String(response.headers["content-encoding"] ?? "").trim().toLowerCase()];
  if (!decoder) return response;
  const decoding = decoder();
  response.once("error", (error) => decoding.destroy(error));
  // A decoder ended early (its reader cancelled, or the answer passed its limit) ends the answer's connection too.
  decoding.once("close", () => response.complete || response.destroy());
  return response.pipe(decoding);
}

function answerOf(response: IncomingMessage, method: string, maxBytes: number): Response {
  const headers = new Headers();
  for (let index = 0; index < response.rawHeaders.length; index += 2) headers.append(response.rawHeaders[index]!, response.rawHeaders[index + 1]!);
  const status = response.statusCode ?? 0;
  const bodiless = NULL_BODY_STATUSES.has(status) || method === "HEAD";
  if (bodiless) response.resume();
  return new Response(bodiless ? null : webBody(decoded(response), maxBytes), { status, statusText: response.statusMessage, headers });
}

/**
 * fetch for the MCP client's transport, over node:http on the executors' pool of kept-alive connections: what undici's
 * fetch adds per request (a Request cloned for its redirect mode, its body teed, an abort listener left on the
 * transport's long-lived signal until the request is garbage collected) is not paid on every tool call. Redirects are
 * never followed (the transport follows them itself); an abort ends the request or its answer's body; a body past
 * `maxBodyBytes` (decoded) ends with AnswerTooLarge, so an answer is never held whole beyond it. `holdsProcess: false`:
 * the request's socket does not keep the process alive (a stream left open while nothing waits on it).
 * Anything but a URL and a string body goes to the global fetch (unbounded).
 */
export function pooledFetch(
  input: string | URL | Request,
  init: RequestInit = {},
  { maxBodyBytes = Number.POSITIVE_INFINITY, holdsProcess = true } = {},
): Promise<Response> {
  const url = input instanceof Request ? undefined : new URL(input);
  const body = init.body ?? undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || (body !== undefined && typeof body !== "string")) return fetch(input, init);
  const method = (init.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { "user-agent": "toolgate", "accept-encoding": ACCEPT_ENCODING };
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(url, { method, headers, agent: agentFor(url) });
    if (!holdsProcess) request.once("socket", (socket) => socket.unref());
    const abort = () => request.destroy(signal!.reason);
    const done = () => signal?.removeEventListener("abort", abort);
    signal?.addEventListener("abort", abort, { once: true });
    request.once("error", (error) => {
      done();
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    request.once("response", (response: IncomingMessage) => {
      response.once("close", done);
      resolve(answerOf(response, method, maxBodyBytes));
    });
    request.end(body);
  });
}
