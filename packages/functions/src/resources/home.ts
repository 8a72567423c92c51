import { Hono } from "hono";
import { API } from "../routes";
import type { Env } from "../http/app";
import { method, path } from "../http/route";

const R = API.roles.home;

/** Where to go from the service's root: a browser is sent to the console, anything else gets the links as JSON. */
export const home = new Hono<Env>().on(method(R.root), path(R.root), (c) => {
  const consolePath = new URL("console", c.req.url).pathname;
  if (c.req.header("accept")?.includes("text/html")) return c.redirect(consolePath, 302);
  return c.json({ service: "toolgate", console: consolePath, health: "/health", mcp: "/mcp" });
});
