import type { EventBridgeEvent } from "aws-lambda";
import * as Module from "@toolgate/core/module";
import { logger } from "../log";

/** Applies one module event; a thrown error makes EventBridge retry, so only transient failures throw. */
export async function handleModuleEvent(store: Module.ModuleStore, event: EventBridgeEvent<string, unknown>) {
  const started = performance.now();
  await store.ready();
  const outcome = await Module.handleEvent(store.db, store.catalog, event, new Date(), store.secrets);
  const line = { eventId: event.id, source: event.source, detailType: event["detail-type"], durationMs: Math.round(performance.now() - started), ...outcome };
  if (outcome.outcome === "rejected") logger.warn("event", line);
  else logger.info("event", line);
  return outcome;
}

export const handler = (event: EventBridgeEvent<string, unknown>) => handleModuleEvent(Module.linkedModuleStore(), event);
