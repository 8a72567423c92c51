import { errorCatalog } from "../error";

/** Modules: one no event has been received for. */
export const MODULE_ERRORS = {
  module_not_found: 404,
} as const;

export const moduleError = errorCatalog(MODULE_ERRORS);
