// Shared by infra/api.ts and the route tests: keep this file free of imports.
// API Gateway path syntax: {param} and {proxy+}.
export const ROUTES = {
  groups: [
    "GET /health",
    "GET /groups",
    "GET /groups/{id}",
    "PUT /groups/{id}",
    "PUT /groups/{id}/executor",
    "DELETE /groups/{id}",
    "GET /tools/{name}",
    "GET /modules",
    "GET /modules/{name}",
  ],
  roles: [
    "GET /roles",
    "POST /roles",
    "GET /roles/by-name/{name}",
    "GET /roles/{id}",
    "PATCH /roles/{id}",
    "GET /console",
    "GET /console/{proxy+}",
  ],
  execution: [
    "POST /agents",
    "GET /agents/{id}",
    "DELETE /agents/{id}",
    "POST /agents/{id}/token",
    "GET /agents/{id}/tools",
    "POST /agents/{id}/calls",
    "GET /agents/{id}/calls",
    "GET /agents/{id}/calls/{callId}",
    "POST /agents/{id}/calls/{callId}/result",
    "GET /agents/{id}/messages",
    "POST /calls/{callId}/approve",
    "POST /calls/{callId}/deny",
    "PUT /tools/{name}/policy",
    "PATCH /tools/{name}/policy",
    "POST /tools/{name}/disable",
    "POST /tools/{name}/enable",
  ],
} as const;

export type ApiFunctionName = keyof typeof ROUTES;
