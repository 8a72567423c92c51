import { serve } from "@hono/node-server";
import type { ServerType } from "@hono/node-server";

type Fetch = (request: Request) => Response | Promise<Response>;

export type ListeningServer = {
  /** The port bound: the one asked for, or the one the system chose for port 0. */
  port: number;
  /** From now on requests go to the stack instead of the 503 `starting` answer. */
  serve(fetch: Fetch): void;
  close(): Promise<void>;
};

const starting: Fetch = () =>
  Response.json(
    { error: "starting", message: "toolgate is starting: DynamoDB Local and the API are not ready yet. Try again in a moment." },
    { status: 503, headers: { "Retry-After": "1" } },
  );

/**
 * The HTTP server, bound before anything else starts: a taken port fails the start before DynamoDB Local runs, with
 * no window in which another process could take the port between a check and the bind. Until the stack is handed
 * over with `serve`, every request is answered 503 `starting`.
 */
export async function listen(port: number, host: string): Promise<ListeningServer> {
  let handle = starting;
  const server = await new Promise<ServerType>((ready, fail) => {
    const started = serve({ fetch: (request) => handle(request), port, hostname: host }, () => ready(started));
    started.once("error", fail);
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    serve: (fetch) => void (handle = fetch),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
