import type { EventBridgeEvent } from "aws-lambda";
import { postToWebhook } from "@toolgate/core/events/webhook";

/** A subscriber from TOOLGATE_EVENT_RULES on AWS: POSTs the event to its rule's webhook; a failure throws, so Lambda retries the delivery. */
export const handler = (event: EventBridgeEvent<string, unknown>) => postToWebhook(process.env.TOOLGATE_WEBHOOK_URL!, event);
