const UNAVAILABLE_SERVICE_ERRORS = new Set([
  "ThrottlingException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "LimitExceededException",
  "ResourceNotFoundException",
  "InternalServerError",
  "ServiceUnavailable",
]);

type SdkError = { name?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };

/**
 * Whether an SDK error means the store itself is unavailable (down, hung, throttling, missing its table)
 * rather than an answer about the data (a failed condition, a cancelled transaction).
 */
export function isStoreFault(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, $fault, $metadata } = error as SdkError;
  if (name !== undefined && UNAVAILABLE_SERVICE_ERRORS.has(name)) return true;
  if ($fault === "server") return true;
  return $metadata !== undefined && $metadata.httpStatusCode === undefined;
}
