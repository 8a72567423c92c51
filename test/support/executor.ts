import { createServer } from "node:http";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the executor received, its JSON body parsed (or the raw text when it is not JSON). */
export type ExecutorRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  rawBody: string;
  receivedAt: number;
};

/** How to answer: a status (200), a JSON body or a raw text body, after an optional delay. */
export type ExecutorReply = {
  status?: number;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  delayMs?: number;
};

export type ExecutorResponder = (request: ExecutorRequest) => ExecutorReply | Promise<ExecutorReply>;

export type Executor = {
  /** The server's base URL, e.g. http://127.0.0.1:54321 (any path is answered). */
  url: string;
  /** Every request received, oldest first. */
  requests: ExecutorRequest[];
  /** Sets how every later request is answered; a reply object answers all requests the same way. */
  respond(responder: ExecutorResponder | ExecutorReply): void;
  /** Requests whose body has `tool` equal to the given name. */
  requestsFor(tool: string): ExecutorRequest[];
  close(): Promise<void>;
};

export const DEFAULT_REPLY: ExecutorReply = { status: 200, body: { content: "ok", type: "text" } };

/** A real HTTP tool executor on 127.0.0.1 and a free port, recording requests and answering as told. */
export async function startExecutor(responder: ExecutorResponder | ExecutorReply = DEFAULT_REPLY): Promise<Executor> {
  const requests: ExecutorRequest[] = [];
  let current: ExecutorResponder = typeof responder === "function" ? responder : () => responder;
  const timers = new Set<NodeJS.Timeout>();

  const answer = (res: ServerResponse, reply: ExecutorReply) => {
    if (res.destroyed || res.writableEnded) return;
    const text = reply.rawBody ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
    res.writeHead(reply.status ?? 200, {
      ...(reply.rawBody === undefined && reply.body !== undefined ? { "content-type": "application/json" } : {}),
      ...reply.headers,
    });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown = rawBody;
      try {
        body = rawBody === "" ? undefined : JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const request: ExecutorRequest = {
        method: req.method ?? "",
        path: req.url ?? "/",
        headers: req.headers,
        body,
        rawBody,
        receivedAt: Date.now(),
      };
      requests.push(request);
      Promise.resolve()
        .then(() => current(request))
        .then(
          (reply) => {
            if (!reply.delayMs) return answer(res, reply);
            const timer = setTimeout(() => {
              timers.delete(timer);
              answer(res, reply);
            }, reply.delayMs);
            timers.add(timer);
          },
          (error: unknown) => answer(res, { status: 500, body: { error: String(error) } }),
        );
    });
  });

  await new Promise<void>((ready, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ready());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      current = typeof next === "function" ? next : () => next;
    },
    requestsFor: (tool) => requests.filter((request) => request.body?.tool === tool),
    close: () =>
      new Promise<void>((done) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
