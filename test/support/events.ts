import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";

/** The real EventBridge client, pointed at the endpoint `npm start` serves. */
export const localEvents = (url: string) =>
  new EventBridgeClient({ endpoint: `${url}/eventbridge`, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

export async function publishModuleEvent(url: string, detailType: "module.loaded" | "module.unloaded", detail: Record<string, unknown>) {
  return localEvents(url).send(
    new PutEventsCommand({ Entries: [{ Source: "toolgate.modules", DetailType: detailType, Detail: JSON.stringify(detail) }] }),
  );
}
