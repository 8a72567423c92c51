// The one declaration of the HTTP API: each Lambda function, its resources and their routes. The Hono apps
// register their handlers on these strings, and infra/api.ts and the local router route by ROUTES, derived here.
// Shared with infra: keep this file free of imports.
export const API = {
  groups: {
    health: { check: "GET /health" },
    groups: {
      list: "GET /groups",
      get: "GET /groups/:id",
      put: "PUT /groups/:id",
      bindExecutor: "PUT /groups/:id/executor",
      refresh: "POST /groups/:id/refresh",
      remove: "DELETE /groups/:id",
    },
    tools: {
      list: "GET /tools",
      stats: "GET /tools/stats",
      get: "GET /tools/:name",
      putPolicy: "PUT /tools/:name/policy",
      patchPolicy: "PATCH /tools/:name/policy",
      disable: "POST /tools/:name/disable",
      enable: "POST /tools/:name/enable",
    },
    modules: { list: "GET /modules", get: "GET /modules/:name" },
    departments: { list: "GET /departments" },
    policies: {
      list: "GET /policies",
      validate: "POST /policies/validate",
      simulate: "POST /policies/simulate",
      get: "GET /policies/:id",
      put: "PUT /policies/:id",
      remove: "DELETE /policies/:id",
    },
  },
  roles: {
    roles: {
      list: "GET /roles",
      create: "POST /roles",
      byName: "GET /roles/by-name/:name",
      get: "GET /roles/:id",
      patch: "PATCH /roles/:id",
      remove: "DELETE /roles/:id",
    },
    home: { root: "GET /" },
    console: { home: "GET /console", page: "GET /console/*" },
    docs: { openapi: "GET /openapi.json", page: "GET /docs" },
  },
  execution: {
    agents: {
      list: "GET /agents",
      create: "POST /agents",
      get: "GET /agents/:id",
      terminate: "DELETE /agents/:id",
      token: "POST /agents/:id/token",
      tools: "GET /agents/:id/tools",
      searchTools: "GET /agents/:id/tools/search",
      toolLayers: "GET /agents/:id/tools/layers",
      messages: "GET /agents/:id/messages",
    },
    offers: {
      resources: "GET /agents/:id/resources",
      read: "GET /agents/:id/resources/read",
      prompts: "GET /agents/:id/prompts",
      getPrompt: "POST /agents/:id/prompts/:name",
    },
    calls: {
      call: "POST /agents/:id/calls",
      history: "GET /agents/:id/calls",
      get: "GET /agents/:id/calls/:callId",
      result: "POST /agents/:id/calls/:callId/result",
      queue: "GET /calls",
      approve: "POST /calls/:callId/approve",
      deny: "POST /calls/:callId/deny",
      answer: "POST /calls/:callId/answer",
    },
    answerTokens: {
      list: "GET /answer-tokens",
      create: "POST /answer-tokens",
      revoke: "DELETE /answer-tokens/:id",
    },
    mcp: {
      post: "POST /mcp",
      get: "GET /mcp",
      remove: "DELETE /mcp",
      resource: "GET /.well-known/oauth-protected-resource",
      resourceOfMcp: "GET /.well-known/oauth-protected-resource/mcp",
    },
    callKeys: { jwks: "GET /.well-known/jwks.json" },
  },
} as const;

export type ApiFunctionName = keyof typeof API;

type Route = `${string} /${string}`;

/** API Gateway's path syntax: {param} for :param, {proxy+} for a trailing *. */
const gatewayRoute = (route: Route) => route.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\/\*$/, "/{proxy+}");

const routesOf = (resources: Record<string, Record<string, Route>>) =>
  Object.values(resources).flatMap((routes) => Object.values(routes).map(gatewayRoute));

/** Every route of each function, as API Gateway and the local router take them. */
export const ROUTES: Record<ApiFunctionName, readonly string[]> = {
  groups: routesOf(API.groups),
  roles: routesOf(API.roles),
  execution: routesOf(API.execution),
};
