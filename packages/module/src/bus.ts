import { MODULE_EVENT_SOURCE } from "./events.js";

/**
 * Toolgate's EventBridge bus: on AWS its name (the `bus` output of toolgate's deploy, or TOOLGATE_BUS); locally the
 * endpoint `npm start` serves (`<toolgate>/eventbridge`), which takes only requests signed with its local key pair:
 * `credentials` read from `<data dir>/local-aws-credentials.json` (`.toolgate/` by default; its JSON is this shape),
 * or the environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set to that pair. Any other key is refused 403.
 */
export type Bus = {
  name?: string;
  endpoint?: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
};

/** Sends one module event; the AWS SDK's EventBridge client is loaded only by a module that announces on the bus. */
export async function sendModuleEvent(bus: Bus, detailType: string, detail: Record<string, unknown>): Promise<void> {
  const { EventBridgeClient, PutEventsCommand } = await import("@aws-sdk/client-eventbridge");
  const client = new EventBridgeClient({
    ...(bus.endpoint ? { endpoint: bus.endpoint } : {}),
    ...(bus.region ? { region: bus.region } : {}),
    ...(bus.credentials ? { credentials: bus.credentials } : {}),
  });
  try {
    const name = bus.name ?? process.env.TOOLGATE_BUS;
    const sent = await client.send(
      new PutEventsCommand({ Entries: [{ Source: MODULE_EVENT_SOURCE, DetailType: detailType, Detail: JSON.stringify(detail), ...(name ? { EventBusName: name } : {}) }] }),
    );
    if (sent.FailedEntryCount) throw new Error(`the bus refused the ${detailType} event: ${sent.Entries?.[0]?.ErrorMessage ?? "no reason given"}`);
  } finally {
    client.destroy();
  }
}
