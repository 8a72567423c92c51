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

/** Raised by the storage boundary when a conditional write lost a race; callers reload and retry or map it. */
export class WriteConflictError extends Error {
  constructor(readonly reasons: Array<string | undefined> = [], options?: { cause?: unknown }) {
    super("conditional write failed", options);
    this.name = "WriteConflictError";
  }
}
