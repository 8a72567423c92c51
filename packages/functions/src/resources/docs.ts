import { Hono } from "hono";
import { API } from "../routes";
import type { Env } from "../http/app";
import { method, path } from "../http/route";

const R = API.roles.docs;

/** The document is built from every function's app on first use, not at a cold start. */
const load = () => import("../openapi/served");
let loading: ReturnType<typeof load> | undefined;
const served = () => (loading ??= load());

export const docs = new Hono<Env>()
  .on(method(R.openapi), path(R.openapi), async (c) => c.json((await served()).servedDocument, 200, { "Cache-Control": "no-cache" }))
  .on(method(R.page), path(R.page), async (c) => {
    const { servedPage } = await served();
    const { DOCS_SECURITY_HEADERS } = await import("../openapi/page");
    return c.html(await servedPage, 200, { ...DOCS_SECURITY_HEADERS, "Cache-Control": "no-cache" });
  });
