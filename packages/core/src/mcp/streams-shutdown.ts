import { closeMcpStreams as endEveryStream } from "./streams";
import { closeSubscriptions } from "./subscriptions";

/**
 * Ends every agent's stream this process holds open (each releases its subscriptions) and closes the subscription
 * connections upstream: at shutdown, before the HTTP server waits for its connections to end. Loads no SDK.
 */
export async function closeMcpStreams(): Promise<void> {
  endEveryStream();
  await closeSubscriptions();
}
