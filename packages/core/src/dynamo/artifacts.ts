import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { Artifact } from "../artifact/schema";
import type { Db } from "./client";
import { Keys } from "./keys";

export async function putArtifact(db: Db, artifact: Artifact): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...Keys.artifact(artifact.artifactId), artifact } }));
}

export async function getArtifact(db: Db, id: string): Promise<Artifact | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.artifact(id), ConsistentRead: true }));
  return Item ? Artifact.parse(Item.artifact) : undefined;
}
