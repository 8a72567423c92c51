import { ToolgateError, WriteConflictError, notFound } from "../error";
import { deleteGroupItem } from "../dynamo/catalog";
import type { Db } from "../dynamo/client";
import { getModule, listModules, moduleEventItems, writeItems } from "../dynamo/modules";
import type { Catalog } from "../group/catalog";
import { registerGroup } from "../group/register";
import { GroupInput } from "../group/index";
import { describeIssues, summarise } from "../validation";
import { ModuleEventType } from "./events";
import { ModuleLoaded, ModuleRef, ModuleUnloaded } from "./schema";
import type { ModuleState } from "./schema";

export { MODULE_EVENT_SOURCE, MODULE_EVENTS_PATTERN, ModuleEventType } from "./events";
export { ModuleState } from "./schema";

export type ModuleEvent = { id: string; "detail-type": string; detail: unknown; time?: string };

export type EventOutcome =
  | { outcome: "loaded" | "unloaded"; module: string; version: number; groupId: string; warning?: string }
  | { outcome: "rejected"; module: string; version: number; reason: ModuleState["reason"] }
  | { outcome: "stale"; module: string; version: number; storedVersion: number }
  | { outcome: "ignored"; reason: string };

const isStale = (error: unknown) => error instanceof WriteConflictError;

export async function get(db: Db, name: string): Promise<ModuleState> {
  const state = await getModule(db, name);
  if (!state) throw notFound("module_not_found", `No event has been received for a module named "${name}".`);
  return state;
}

export const list = (db: Db) => listModules(db);

/** Applies a module event: idempotent per event id, ordered per module by version, rejections recorded. */
export async function handleEvent(db: Db, catalog: Catalog, event: ModuleEvent, now: Date): Promise<EventOutcome> {
  const ref = ModuleRef.safeParse(event.detail);
  if (!ref.success)
    return { outcome: "ignored", reason: `the detail has no valid module name and version: ${summarise(describeIssues(ref.error))}` };
  const { module, version } = ref.data;
  const stored = await getModule(db, module);
  if (stored && stored.version >= version) return { outcome: "stale", module, version, storedVersion: stored.version };

  const nowIso = now.toISOString();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const stateItems = (state: Omit<ModuleState, "module" | "version" | "updatedAt" | "lastEventId">) =>
    moduleEventItems(db, { module, version, updatedAt: nowIso, lastEventId: event.id, ...state }, event.id, nowSeconds);
  const staleNow = async () => ({
    outcome: "stale" as const,
    module,
    version,
    storedVersion: (await getModule(db, module))?.version ?? version,
  });

  try {
    if (event["detail-type"] === ModuleEventType.Loaded) return await load(db, catalog, event.detail, module, version, stored, stateItems, nowIso);
    if (event["detail-type"] === ModuleEventType.Unloaded) return await unload(db, catalog, event.detail, module, version, stored, stateItems);
  } catch (error) {
    if (isStale(error)) return staleNow();
    throw error;
  }
  return { outcome: "ignored", reason: `unknown detail-type "${event["detail-type"]}"` };
}

type StateItems = (state: Omit<ModuleState, "module" | "version" | "updatedAt" | "lastEventId">) => ReturnType<typeof moduleEventItems>;

async function load(
  db: Db,
  catalog: Catalog,
  detail: unknown,
  module: string,
  version: number,
  stored: ModuleState | undefined,
  stateItems: StateItems,
  now: string,
): Promise<EventOutcome> {
  const groupId = (detail as { toolGroupId?: unknown }).toolGroupId;
  const fallbackGroupId = typeof groupId === "string" ? groupId : module;
  const reject = async (reason: NonNullable<ModuleState["reason"]>): Promise<EventOutcome> => {
    await writeItems(db, stateItems({ status: "rejected", groupId: stored?.groupId ?? fallbackGroupId, reason }));
    return { outcome: "rejected", module, version, reason };
  };
  const parsed = ModuleLoaded.safeParse(detail);
  const input = parsed.success
    ? GroupInput.safeParse({ description: parsed.data.description, tools: parsed.data.tools, executor: parsed.data.executor })
    : parsed;
  if (!input.success) {
    const details = describeIssues(input.error);
    return reject({ error: "invalid_group_def", message: `The module's tool group is not valid: ${summarise(details)}.`, details });
  }
  const target = parsed.data!.toolGroupId ?? module;
  try {
    const replacing = stored?.groupId !== undefined && stored.groupId !== target ? stored.groupId : undefined;
    const outcome = await registerGroup(
      db,
      catalog,
      target,
      input.data,
      { source: "module", module, now, ...(replacing ? { replacing } : {}) },
      stateItems({ status: "loaded", groupId: target }),
    );
    return { outcome: "loaded", module, version, groupId: target, ...(outcome.warning ? { warning: outcome.warning } : {}) };
  } catch (error) {
    if (error instanceof ToolgateError) return reject(error.toBody());
    throw error;
  }
}

async function unload(
  db: Db,
  catalog: Catalog,
  detail: unknown,
  module: string,
  version: number,
  stored: ModuleState | undefined,
  stateItems: StateItems,
): Promise<EventOutcome> {
  const parsed = ModuleUnloaded.safeParse(detail);
  const groupId = (parsed.success ? parsed.data.toolGroupId : undefined) ?? stored?.groupId ?? module;
  const items = stateItems({ status: "unloaded", groupId });
  const removed = await catalog.change((manager) => {
    const group = manager.getGroup(groupId);
    if (!group || group.module !== module) return { items: null, result: false };
    return { items: [deleteGroupItem(db, groupId, module), ...items], result: true };
  });
  if (!removed) await writeItems(db, items);
  return { outcome: "unloaded", module, version, groupId };
}
