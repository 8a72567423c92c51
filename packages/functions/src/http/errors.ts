import { errorCatalog } from "@toolgate/core/error";

/**
 * What the HTTP edge answers before a route's own code runs, or after it fails: a path, body or query it cannot read,
 * a route it does not serve, an error of toolgate's own.
 */
export const HTTP_ERRORS = {
  invalid_json: 400,
  invalid_path: 400,
  invalid_query: 400,
  not_found: 404,
  payload_too_large: 413,
  internal: 500,
} as const;

export const httpError = errorCatalog(HTTP_ERRORS);
