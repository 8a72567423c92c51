import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";

type Credentials = { accessKeyId: string; secretAccessKey: string };

/** The real EventBridge client, pointed at the endpoint `npm start` serves and signing with its local key pair. */
export const localEvents = (stack: { url: string; awsCredentials: Credentials }) =>
  new EventBridgeClient({ endpoint: `${stack.url}/eventbridge`, region: "us-east-1", credentials: { ...stack.awsCredentials } });

export async function publishModuleEvent(
  stack: { url: string; awsCredentials: Credentials },
  detailType: "module.loaded" | "module.unloaded",
  detail: Record<string, unknown>,
) {
  return localEvents(stack).send(
    new PutEventsCommand({ Entries: [{ Source: "toolgate.modules", DetailType: detailType, Detail: JSON.stringify(detail) }] }),
  );
}
