import type { TestProject } from "vitest/node";
import { startDynamoLocal } from "@toolgate/local/dynamo-local";
import { buildServed } from "../../packages/functions/src/build";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file works in tables of its own. */
export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  await buildServed();
  const dynamo = await startDynamoLocal({ log: () => {} });
  project.provide("dynamoEndpoint", dynamo.endpoint);
  return () => dynamo.stop();
}
