import type { IncomingMessage, ServerResponse } from "node:http";
import { CALL_TOKEN_HEADER } from "./call-token.js";
import { answerCall, MAX_BODY_BYTES, NOT_A_CALL, NOT_POST } from "./calls.js";
import type { CallAnswer, CallServer } from "./calls.js";

/** The request's body as text, or undefined past `limit` bytes (the rest is not read). */
function textOf(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners("data");
        request.resume();
        done(undefined);
      } else chunks.push(chunk);
    });
    request.on("end", () => done(size > limit ? undefined : Buffer.concat(chunks).toString("utf8")));
    request.on("error", fail);
  });
}

const send = (response: ServerResponse, { status, body }: CallAnswer) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
};

/**
 * The module as a `node:http` request listener: the same answers as `fetch`, without building web Request and
 * Response objects. The audience is the module's `url`, else `http://<host><path>` of the request.
 */
export function nodeListener(server: CallServer, url: string | undefined) {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== "POST") return send(response, NOT_POST);
    void textOf(request, MAX_BODY_BYTES)
      .then(async (text) => {
        if (text === undefined) return send(response, NOT_A_CALL);
        const audience = url ?? `http://${request.headers.host}${(request.url ?? "/").split("?")[0]}`;
        send(response, await answerCall(server, text, request.headers[CALL_TOKEN_HEADER] as string | undefined, audience));
      })
      .catch((error: unknown) => {
        console.error(JSON.stringify({ level: "error", message: "a call could not be answered", error: error instanceof Error ? error.message : String(error) }));
        if (!response.headersSent) send(response, { status: 500, body: { error: "internal", message: "The module could not answer the call." } });
        else response.destroy();
      });
  };
}
