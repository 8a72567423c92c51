import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Toolgate } from "@toolgate/core/toolgate";
import { groupsApp } from "@toolgate/functions/api/groups";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { ROUTES } from "@toolgate/functions/routes";
import { routedFetch } from "@toolgate/local/router";

export type Served = { url: string; close(): Promise<void> };
export type ServedToolgate = Served;

/** A fetch handler behind an HTTP server on 127.0.0.1 and a free port; `url` is its origin. */
export async function serveFetch(fetch: (request: Request) => Response | Promise<Response>): Promise<Served> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((ready) => (server.listening ? ready() : server.once("listening", () => ready())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}

/** The three functions behind one HTTP server on 127.0.0.1, routed as API Gateway and `npm start` route them. */
export async function serveToolgate(toolgate: Toolgate): Promise<ServedToolgate> {
  return serveFetch(
    routedFetch([
      { routes: ROUTES.groups, app: groupsApp(() => toolgate) },
      { routes: ROUTES.roles, app: rolesApp(() => toolgate) },
      { routes: ROUTES.execution, app: executionApp(() => toolgate) },
    ]),
  );
}
