import { defineTool } from "@toolgate/module/tool";
import * as z from "zod";
import * as Artifact from "../artifact/index";
import type { BuiltinGroup } from "./group";
import type { NativeContext } from "./native";

export const putArtifact = defineTool({
  name: "put_artifact",
  description:
    "Store a piece of content (a document, a report, data) as an artifact that other agents can read. Returns { artifactId }; pass that id to other agents instead of pasting large content into messages.",
  parameters: z.strictObject({
    content: z
      .string()
      .min(1)
      .max(100_000)
      .describe("The artifact's content as text (serialise JSON or other structured data to a string first)."),
    name: z.string().min(1).max(200).optional().describe("Optional human-readable name, e.g. \"design-notes.md\"."),
    mimeType: z
      .string()
      .max(255)
      .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;.*)?$/)
      .default("text/plain")
      .describe("Media type of the content, e.g. \"text/markdown\" or \"application/json\"."),
  }),
  execute: async (input, { db, agentId, now }: NativeContext) => ({ artifactId: (await Artifact.put(db, input, agentId, now())).artifactId }),
});

export const getArtifact = defineTool({
  name: "get_artifact",
  description: "Fetch an artifact by its id. Returns { artifactId, name, mimeType, content }, or an error if no artifact has that id.",
  parameters: z.strictObject({
    artifactId: z.string().min(1).max(128).describe("Id of the artifact, as returned by put_artifact."),
  }),
  execute: async (input, { db }: NativeContext) => {
    const { artifactId, name, mimeType, content } = await Artifact.get(db, input.artifactId);
    return { artifactId, name, mimeType, content };
  },
});

export const artifactGroup: BuiltinGroup<"artifact"> = {
  id: "artifact",
  description: "Store work products as artifacts and fetch them by id, so agents can share them.",
  executor: { type: "native" },
  tools: [putArtifact, getArtifact],
};
