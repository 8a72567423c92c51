export type ErrorDetails = Record<string, unknown>;

/** Every status toolgate answers a refusal or a failure with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 429 | 500 | 501 | 502 | 503 | 504;

export class ToolgateError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ToolgateError";
  }

  toBody() {
    return { error: this.code, message: this.message, ...this.details };
  }
}

/** An area's catalog of error codes, each with the one status it is sent with. */
export type ErrorCatalog = Readonly<Record<string, ErrorStatus>>;

/**
 * The constructor of an area's errors: it takes only the catalog's codes and gives each the catalog's status, so the
 * errors an area sends and the lists OpenAPI documents are made from the same catalog.
 */
export const errorCatalog =
  <C extends ErrorCatalog>(catalog: C) =>
  (code: keyof C & string, message: string, details?: ErrorDetails, options?: { cause?: unknown }) =>
    new ToolgateError(catalog[code]!, code, message, details, options);

/** What any area may answer: a page's cursor, a change's version, JSON nested too deep, and the store's contention and failures. */
export const COMMON_ERRORS = {
  invalid_cursor: 400,
  invalid_if_match: 400,
  json_too_deep: 400,
  version_conflict: 412,
  busy: 503,
  store_unavailable: 503,
} as const;

export const commonError = errorCatalog(COMMON_ERRORS);

export const invalidCursor = () => commonError("invalid_cursor", "The cursor is not one this list handed out; start again without it.");

/** A refusal the caller can act on (4xx); 5xx errors are failures of toolgate or what it depends on. */
export const isRefusal = (error: unknown): error is ToolgateError => error instanceof ToolgateError && error.status < 500;

/** Other writers kept winning the race for the same data until the deadline passed. */
export const busy = () =>
  commonError("busy", "Other changes to the same data kept getting there first, so this one was not applied; retry in a moment.", {
    retryAfterSeconds: 1,
    recoverable: true,
  });

/** Raised by the storage boundary: DynamoDB did not answer, timed out, throttled or failed. */
export class StoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super("the store did not answer", options);
    this.name = "StoreUnavailableError";
  }
}

/** How a caller hears that the store is unavailable; nothing was half-written. */
export const storeUnavailable = (cause?: unknown) =>
  commonError(
    "store_unavailable",
    "toolgate's database is not answering right now, so the request was not completed; retry in a moment.",
    { retryAfterSeconds: 2 },
    { cause },
  );

/** A change's own conditions did not hold when it was written (e.g. a module moved on meanwhile): decide again from what is stored. */
export class ConditionFailedError extends Error {
  constructor() {
    super("the change's own conditions no longer held when it was written");
    this.name = "ConditionFailedError";
  }
}
