import type { Db } from "../dynamo/client";
import { getArtifact, putArtifact } from "../dynamo/artifacts";
import { createId } from "../id";
import { artifactError } from "./errors";
import type { Artifact } from "./schema";

export { Artifact } from "./schema";
export { ARTIFACT_ERRORS, artifactError } from "./errors";

/** DynamoDB items stop at 400 KB; this leaves room for the rest of the item. */
export const MAX_ARTIFACT_BYTES = 300 * 1024;

export async function put(db: Db, input: { content: string; name?: string; mimeType?: string }, createdBy: string, now: string): Promise<Artifact> {
  const size = Buffer.byteLength(input.content, "utf8");
  if (size > MAX_ARTIFACT_BYTES)
    throw artifactError("artifact_too_large", `An artifact can hold at most ${MAX_ARTIFACT_BYTES / 1024} KiB of content; this one is ${Math.ceil(size / 1024)} KiB.`);
  const artifact: Artifact = {
    artifactId: createId("art"),
    name: input.name ?? null,
    mimeType: input.mimeType ?? "text/plain",
    content: input.content,
    createdBy,
    createdAt: now,
  };
  await putArtifact(db, artifact);
  return artifact;
}

export async function get(db: Db, id: string): Promise<Artifact> {
  if (!/^art_[0-9A-Z]{26}$/.test(id)) throw artifactError("invalid_artifact_id", `"${id}" is not an artifact id (they look like art_01J...).`);
  const artifact = await getArtifact(db, id);
  if (!artifact) throw artifactError("artifact_not_found", `There is no artifact "${id}".`);
  return artifact;
}
