import { inject } from "vitest";
import { ulid } from "ulid";
import { Toolgate } from "@toolgate/core/toolgate";
import type { ToolgateOptions } from "@toolgate/core/toolgate";
import { groupsApp } from "@toolgate/functions/api/groups";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { ROUTES } from "@toolgate/functions/routes";
import { ensureTable } from "@toolgate/local/local-table";
import { createRouter } from "@toolgate/local/router";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const SIGNING_KEY = "test-signing-key-0123456789-0123456789";

/** A Toolgate on a fresh table of the shared DynamoDB Local, started as a cold Lambda would be. */
export async function testToolgate(overrides: Partial<ToolgateOptions> = {}): Promise<Toolgate> {
  const table = `test_${ulid()}`;
  const toolgate = new Toolgate({
    table,
    endpoint: inject("dynamoEndpoint"),
    adminToken: ADMIN_TOKEN,
    signingKey: SIGNING_KEY,
    ...overrides,
  });
  await ensureTable(toolgate.db.client, table);
  await toolgate.ready();
  return toolgate;
}

export type ApiResponse = { status: number; body: any; headers: Headers };
export type RequestOptions = { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** Requests routed to the function that owns each route, exactly as API Gateway and `npm start` route them. */
export function api(toolgate: Toolgate) {
  const route = createRouter([
    { routes: ROUTES.groups, app: groupsApp(() => toolgate) },
    { routes: ROUTES.roles, app: rolesApp(() => toolgate) },
    { routes: ROUTES.execution, app: executionApp(() => toolgate) },
  ]);
  return async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const token = options.token === undefined ? ADMIN_TOKEN : options.token;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers["content-type"] = "application/json";
    const app = route(method, new URL(path, "http://toolgate.test").pathname);
    if (!app) return { status: 404, body: { error: "not_found", message: `There is no route ${method} ${path}.` }, headers: new Headers() };
    const response = await app.fetch(new Request(new URL(path, "http://toolgate.test"), { method, headers, body }));
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
}

export type Api = ReturnType<typeof api>;

export const tool = (name: string, description = `The ${name} tool.`, parameters: Record<string, unknown> = { type: "object", properties: {} }) => ({
  type: "function" as const,
  function: { name, description, parameters },
});
