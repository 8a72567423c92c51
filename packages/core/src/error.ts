export type ErrorDetails = Record<string, unknown>;

export class ToolgateError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 412 | 413 | 429 | 501 | 502 | 503 | 504,
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

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new ToolgateError(400, code, message, details);
export const notFound = (code: string, message: string, details?: ErrorDetails) =>
  new ToolgateError(404, code, message, details);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new ToolgateError(409, code, message, details);
export const forbidden = (code: string, message: string, details?: ErrorDetails) =>
  new ToolgateError(403, code, message, details);

/** A refusal the caller can act on (4xx); 5xx errors are failures of toolgate or what it depends on. */
export const isRefusal = (error: unknown): error is ToolgateError => error instanceof ToolgateError && error.status < 500;

/** Other writers kept winning the race for the same data until the deadline passed. */
export const busy = () =>
  new ToolgateError(503, "busy", "Other changes to the same data kept getting there first, so this one was not applied; retry in a moment.", {
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
  new ToolgateError(
    503,
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
