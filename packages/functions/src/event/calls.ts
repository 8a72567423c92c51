import type { DynamoDBStreamEvent } from "aws-lambda";
import { linkedPublisher, publishCallEvents } from "@toolgate/core/events";
import type { EventPublisher, StreamRecord } from "@toolgate/core/events";
import { logger } from "../log";

/** Announces the calls a batch of the table's stream records settled (call.settled), after their writes committed. */
export async function handleCallStream(publisher: EventPublisher, records: readonly StreamRecord[]) {
  const started = performance.now();
  await publishCallEvents(publisher, records);
  logger.info("stream", { records: records.length, durationMs: Math.round(performance.now() - started) });
}

export const handler = (event: DynamoDBStreamEvent) => handleCallStream(linkedPublisher(), event.Records as StreamRecord[]);
