import { Hono } from "hono";
import { API } from "../routes";
import type { Env } from "../http/app";
import { method, path } from "../http/route";

const R = API.roles.docs;

/** The document, built with the service (openapi/build.ts), is loaded on its first request, not at a cold start. */
const load = () => import("../openapi/served.js");
let loading: ReturnType<typeof load> | undefined;
const served = () => (loading ??= load());

export const docs = new Hono<Env>()
  .on(method(R.openapi), path(R.openapi), async (c) => c.json((await served()).SERVED_DOCUMENT, 200, { "Cache-Control": "no-cache" }))
  .on(method(R.page), path(R.page), async (c) => {
    const { SERVED_PAGE } = await served();
    const { DOCS_SECURITY_HEADERS } = await import("../openapi/page");
    return c.html(SERVED_PAGE, 200, { ...DOCS_SECURITY_HEADERS, "Cache-Control": "no-cache" });
  });
