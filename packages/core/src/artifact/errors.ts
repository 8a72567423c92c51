import { errorCatalog } from "../error";

/** Artifacts: an id that is not one, an artifact that does not exist or is too large. */
export const ARTIFACT_ERRORS = {
  invalid_artifact_id: 400,
  artifact_not_found: 404,
  artifact_too_large: 413,
} as const;

export const artifactError = errorCatalog(ARTIFACT_ERRORS);
