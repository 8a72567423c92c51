import type { Hono } from "hono";

type Route = { method: string; pattern: RegExp; specificity: number; app: { fetch: Hono["fetch"] } };

function compile(route: string, app: Route["app"]): Route {
  const [method, path] = route.split(" ") as [string, string];
  const segments = path.split("/").filter(Boolean);
  const pattern = segments
    .map((segment) => (segment === "{proxy+}" ? "/.+" : /^\{.+\}$/.test(segment) ? "/[^/]+" : `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
    .join("");
  const literals = segments.filter((segment) => !segment.startsWith("{")).length;
  return { method, pattern: new RegExp(`^${pattern || "/"}/?$`), specificity: literals * 100 + segments.length, app };
}

/** Routes requests to the function that owns the route, as API Gateway does, so a route missing from ROUTES fails here too. */
export function createRouter(table: Array<{ routes: readonly string[]; app: Route["app"] }>) {
  const routes = table
    .flatMap(({ routes, app }) => routes.map((route) => compile(route, app)))
    .sort((a, b) => b.specificity - a.specificity);
  return (method: string, path: string) =>
    routes.find((route) => (route.method === method || (method === "HEAD" && route.method === "GET")) && route.pattern.test(path))?.app;
}
