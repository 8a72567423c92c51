import type { z } from "zod";
import type { ErrorCatalog, ErrorStatus } from "@toolgate/core/error";
import type { API, ApiFunctionName } from "../routes";

/** Who may call a route: read from its auth middleware, or stated where the handler checks the token itself. */
export type Access = "public" | "admin" | "adminOrSelf" | "adminOrAnswerer" | "self";

/** An answer that is a page for a person rather than JSON. */
export const HTML = "text/html" as const;

export type Answer = z.ZodType | typeof HTML | null;

/**
 * A route's documentation: what GET /openapi.json cannot read from the route itself. The method, path and path
 * parameters come from routes.ts; the body and query schemas and who may call it from the route's middleware.
 */
/** Error codes by the status they are sent with. */
export type ErrorList = Partial<Record<ErrorStatus, readonly string[]>>;

export type RouteDoc = {
  summary: string;
  description?: string;
  /** Only where no auth middleware says so (the route checks the token itself). */
  access?: Access;
  /** Success answers by status: a zod schema of the JSON, HTML, or null for no body. */
  answers: Partial<Record<200 | 201 | 202 | 204, Answer>>;
  /** The route's own refusals by status, built from the areas' catalogs with errorsFrom; those every route or its middleware may give are added for it. */
  errors?: ErrorList;
};

type RoutesOf<F extends ApiFunctionName> = { [R in keyof (typeof API)[F]]: (typeof API)[F][R][keyof (typeof API)[F][R]] }[keyof (typeof API)[F]];

/** Every route of one function, documented: a route declared in routes.ts without an entry here fails the OpenAPI test. */
export type RouteDocs<F extends ApiFunctionName> = { [R in RoutesOf<F> & string]?: RouteDoc };

/** A route's own refusals by status, taken from its area's catalog of error codes (code → status). */
export function errorsFrom<C extends ErrorCatalog>(catalog: C, ...codes: ReadonlyArray<keyof C & string>): ErrorList {
  const byStatus: Partial<Record<ErrorStatus, string[]>> = {};
  for (const code of codes) {
    const status: ErrorStatus = catalog[code]!;
    (byStatus[status] ??= []).push(code);
  }
  return byStatus;
}

/** Several error lists as one (the codes of each status together). */
export function mergeErrors(...lists: ReadonlyArray<ErrorList>): ErrorList {
  const merged: Partial<Record<ErrorStatus, string[]>> = {};
  for (const list of lists) for (const [status, codes] of Object.entries(list) as Array<[`${ErrorStatus}`, readonly string[]]>) (merged[Number(status) as ErrorStatus] ??= []).push(...codes);
  return merged;
}
