import type { Context, Env, Hono } from "hono";
import { html } from "hono/html";
import { CLIENT_SCRIPT } from "./app-script.js";
import { ConsoleDocument } from "./pages";
import type { ConsolePage } from "./pages";
import { STYLES } from "./styles";
import { API } from "../routes";
import { path } from "../http/route";

export const CONSOLE_SECURITY_HEADERS = {
  "Content-Security-Policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
} as const;

/**
 * Relative path from the page's URL back to where the API is mounted, so links, assets and API calls
 * keep working when the API is served under a prefix (a stage or a custom domain's base path).
 */
export const rootFromPath = (path: string) => "../".repeat(Math.max(0, path.split("/").length - 2)) || "./";

const NAMED_PAGES: Record<string, ConsolePage> = {
  "/console": { kind: "roles" },
  "/console/": { kind: "roles" },
  "/console/groups": { kind: "groups" },
  "/console/tools": { kind: "tools" },
  "/console/policies": { kind: "policies" },
  "/console/modules": { kind: "modules" },
  "/console/agents": { kind: "agents" },
  "/console/departments": { kind: "departments" },
  "/console/approvals": { kind: "approvals" },
  "/console/questions": { kind: "questions" },
};

function pageFor(path: string): ConsolePage {
  const named = NAMED_PAGES[path];
  if (named) return named;
  const [, section, raw] = path.match(/^\/console\/(roles|tools|agents)\/([^/]+)$/) ?? [];
  const id = raw === undefined ? undefined : safeDecode(raw);
  if (!id) return { kind: "not-found" };
  if (section === "roles") return { kind: "role", roleId: id };
  if (section === "tools") return { kind: "tool", toolName: id };
  return { kind: "agent", agentId: id };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function renderPage(c: Context) {
  const page = pageFor(c.req.path);
  const document = html`<!doctype html>${<ConsoleDocument page={page} root={rootFromPath(c.req.path)} />}`;
  return c.html(document, page.kind === "not-found" ? 404 : 200, { "Cache-Control": "no-store" });
}

/** The operator console: public HTML, CSS and a small script under /console; all data comes from the JSON API. */
export function mountConsole<E extends Env>(app: Hono<E>) {
  const home = path(API.roles.console.home);
  const pages = path(API.roles.console.page);
  for (const route of [home, pages])
    app.use(route, async (c, next) => {
      await next();
      for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) c.res.headers.set(name, value);
    });
  app.get("/console/app.js", (c) =>
    c.body(CLIENT_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" }),
  );
  app.get("/console/app.css", (c) => c.body(STYLES, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache" }));
  app.get(home, renderPage);
  app.get(pages, renderPage);
  return app;
}
