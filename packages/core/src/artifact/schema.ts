import * as z from "zod";

export const Artifact = z.object({
  artifactId: z.string(),
  name: z.string().nullable(),
  mimeType: z.string(),
  content: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type Artifact = z.infer<typeof Artifact>;
