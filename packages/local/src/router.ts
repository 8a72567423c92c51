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

const notFound = (method: string, path: string) =>
  Response.json({ error: "not_found", message: `There is no route ${method} ${path}.` }, { status: 404 });

/** The path of an absolute request URL, without parsing the whole URL. */
const pathOf = (url: string) => {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return start === -1 ? "/" : url.slice(start, query === -1 ? undefined : query);
};

/** One server's fetch: each request goes to the app of the function that owns its route, or gets the API's 404. */
export function routedFetch(table: Parameters<typeof createRouter>[0]) {
  const route = createRouter(table);
  return (request: Request) => {
    const path = pathOf(request.url);
    return route(request.method, path)?.fetch(request) ?? notFound(request.method, path);
  };
}
