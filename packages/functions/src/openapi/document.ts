import type { Hono } from "hono";
import * as z from "zod";
import { AGENT_ERRORS } from "@toolgate/core/agent";
import { COMMON_ERRORS } from "@toolgate/core/error";
import { requireAdmin, requireAdminOrAnswerer, requireAdminOrSelf, requireSelf, requireSelfCached } from "../http/auth";
import { HTTP_ERRORS } from "../http/errors";
import { validationOf } from "../http/validate";
import type { Validation } from "../http/validate";
import { API } from "../routes";
import type { ApiFunctionName } from "../routes";
import type { Access, Answer, ErrorList, RouteDoc } from "./describe";
import { errorsFrom, HTML, mergeErrors } from "./describe";
import { executionDocs } from "./execution";
import { groupsDocs } from "./groups";
import { rolesDocs } from "./roles";

const DOCS: Record<ApiFunctionName, Partial<Record<string, RouteDoc>>> = { groups: groupsDocs, roles: rolesDocs, execution: executionDocs };

const ACCESS_OF_MIDDLEWARE = new Map<unknown, Access>([
  [requireAdmin, "admin"],
  [requireAdminOrSelf, "adminOrSelf"],
  [requireAdminOrAnswerer, "adminOrAnswerer"],
  [requireSelf, "self"],
  [requireSelfCached, "self"],
]);

const SECURITY: Record<Access, Array<Record<string, []>>> = {
  public: [],
  admin: [{ adminToken: [] }],
  adminOrSelf: [{ adminToken: [] }, { agentToken: [] }],
  adminOrAnswerer: [{ adminToken: [] }, { answerToken: [] }],
  self: [{ agentToken: [] }],
};

type JsonSchema = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as JsonSchema;
  return rest;
};

/** What a route's own middleware says about it, from the app that serves it. */
function mounted(app: Hono<any>, method: string, path: string) {
  const handlers = app.routes.filter((route) => route.method === method && route.path === path).map((route) => route.handler);
  const validations = handlers.map(validationOf).filter((validation): validation is Validation => validation !== undefined);
  return { served: handlers.length > 0, access: handlers.map((handler) => ACCESS_OF_MIDDLEWARE.get(handler)).find(Boolean), validations };
}

/** The refusals and failures any route may give besides its own, by what it does. */
function commonErrors(access: Access, validations: Validation[], method: string): ErrorList {
  const body = validations.some((validation) => validation.target === "json");
  return mergeErrors(
    errorsFrom(HTTP_ERRORS, "invalid_path", "internal"),
    ...validations.map(({ code, status }) => ({ [status]: [code] })),
    body ? mergeErrors(errorsFrom(HTTP_ERRORS, "invalid_json", "payload_too_large"), errorsFrom(COMMON_ERRORS, "json_too_deep")) : {},
    access === "public" ? {} : errorsFrom(AGENT_ERRORS, "unauthenticated", "forbidden"),
    method === "GET" ? errorsFrom(COMMON_ERRORS, "store_unavailable") : errorsFrom(COMMON_ERRORS, "busy", "store_unavailable"),
  );
}

const ErrorBody = (codes: string[]) => ({
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "string", enum: codes }, message: { type: "string", description: "a sentence a person understands" } },
  additionalProperties: true,
});

function successResponse(status: string, answer: Answer) {
  const description = status === "204" ? "No content" : status === "202" ? "Accepted" : status === "201" ? "Created" : "OK";
  if (answer === null) return { description };
  if (answer === HTML) return { description, content: { [HTML]: { schema: { type: "string" } } } };
  return { description, content: { "application/json": { schema: jsonSchema(answer, "output") } } };
}

function errorResponses(own: RouteDoc["errors"], common: ErrorList) {
  const byStatus = new Map<string, Set<string>>();
  for (const errors of [common, own ?? {}])
    for (const [status, codes] of Object.entries(errors)) for (const code of codes ?? []) byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  const sorted = [...byStatus].sort(([a], [b]) => Number(a) - Number(b));
  return Object.fromEntries(
    sorted.map(([status, codes]) => [status, { description: [...codes].join(", "), content: { "application/json": { schema: ErrorBody([...codes]) } } }]),
  );
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\/\*$/, "/{page}");
const pathParameters = (path: string) => [...openApiPath(path).matchAll(/\{([A-Za-z]+)\}/g)].map((match) => match[1]!);

function queryParameters(validations: Validation[]) {
  const query = validations.find((validation) => validation.target === "query");
  if (!query) return [];
  const schema = jsonSchema(query.schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: property }));
}

function operation(fn: ApiFunctionName, resource: string, name: string, route: string, app: Hono<any>) {
  const [method, path] = route.split(" ") as [string, string];
  const doc = DOCS[fn][route];
  const found = mounted(app, method, path);
  const access: Access = found.access ?? doc?.access ?? "public";
  const body = found.validations.find((validation) => validation.target === "json");
  return {
    operationId: `${resource}.${name}`,
    tags: [resource],
    summary: doc?.summary ?? "Undocumented",
    ...(doc?.description ? { description: doc.description } : {}),
    ...(doc ? {} : { "x-undocumented": true }),
    security: SECURITY[access],
    parameters: [
      ...pathParameters(path).map((parameter) => ({ name: parameter, in: "path", required: true, schema: { type: "string" } })),
      ...queryParameters(found.validations),
    ],
    ...(body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(body.schema, "input") } } } } : {}),
    responses: {
      ...Object.fromEntries(Object.entries(doc?.answers ?? {}).map(([status, answer]) => [status, successResponse(status, answer as Answer)])),
      ...errorResponses(doc?.errors, commonErrors(access, found.validations, method)),
    },
  };
}

/** Every route declared in routes.ts, each function's as its app serves it. */
const declared = () =>
  (Object.keys(API) as ApiFunctionName[]).flatMap((fn) =>
    Object.entries(API[fn]).flatMap(([resource, routes]) => Object.entries(routes as Record<string, string>).map(([name, route]) => ({ fn, resource, name, route }))),
  );

/** Declared routes without an entry in openapi/<function>.ts: the OpenAPI test keeps this empty. */
export const undocumentedRoutes = () => declared().filter(({ fn, route }) => DOCS[fn][route] === undefined).map(({ route }) => route);

/** Declared routes no handler of their function's app serves. */
export const unservedRoutes = (apps: Record<ApiFunctionName, Hono<any>>) =>
  declared().filter(({ fn, route }) => !mounted(apps[fn], ...(route.split(" ") as [string, string])).served).map(({ route }) => route);

/** The OpenAPI 3.1 document of the whole API, from routes.ts, the apps' validators and auth middleware, and the route docs. */
export function openApiDocument(apps: Record<ApiFunctionName, Hono<any>>) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { fn, resource, name, route } of declared()) {
    const [method, path] = route.split(" ") as [string, string];
    (paths[openApiPath(path)] ??= {})[method.toLowerCase()] = operation(fn, resource, name, route, apps[fn]);
  }
  return {
    openapi: "3.1.1",
    info: {
      title: "toolgate",
      version: "1",
      description:
        "Decides which tools each AI agent sees and may call. Errors are always `{ error, message, ...details }` with a stable `error` code; 503 answers carry Retry-After.",
    },
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "The admin token (TOOLGATE_ADMIN_TOKEN, or .toolgate/admin-token locally)" },
        agentToken: { type: "http", scheme: "bearer", description: "An agent's own token, from POST /agents or POST /agents/:id/token" },
        answerToken: {
          type: "http",
          scheme: "bearer",
          description: "An answering token, from POST /answer-tokens: it reads the questions queue and answers questions, nothing else",
        },
      },
    },
  };
}
