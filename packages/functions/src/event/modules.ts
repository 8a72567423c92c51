import type { EventBridgeEvent } from "aws-lambda";
import * as Module from "@toolgate/core/module";

/** Applies one module event; a thrown error makes EventBridge retry, so only transient failures throw. */
export async function handleModuleEvent(store: Module.ModuleStore, event: EventBridgeEvent<string, unknown>) {
  await store.ready();
  const outcome = await Module.handleEvent(store.db, store.catalog, event, new Date(), store.secrets);
  console.log(JSON.stringify({ level: outcome.outcome === "rejected" ? "warn" : "info", event: event.id, ...outcome }));
  return outcome;
}

export const handler = (event: EventBridgeEvent<string, unknown>) => handleModuleEvent(Module.linkedModuleStore(), event);
