import type { EventBridgeEvent } from "aws-lambda";
import * as Module from "@toolgate/core/module";
import { toolgate } from "@toolgate/core/toolgate";
import type { Toolgate } from "@toolgate/core/toolgate";

/** Applies one module event; a thrown error makes EventBridge retry, so only transient failures throw. */
export async function handleModuleEvent(tg: Toolgate, event: EventBridgeEvent<string, unknown>) {
  await tg.ready();
  const outcome = await Module.handleEvent(tg.db, tg.catalog, event, new Date());
  console.log(JSON.stringify({ level: outcome.outcome === "rejected" ? "warn" : "info", event: event.id, ...outcome }));
  return outcome;
}

export const handler = (event: EventBridgeEvent<string, unknown>) => handleModuleEvent(toolgate(), event);
