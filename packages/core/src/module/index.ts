import { ConditionFailedError, isRefusal, ToolgateError } from "../error";
import { AGAIN, untilSettled } from "../contention";
import { groupRemovals, outsideCatalog } from "../dynamo/catalog";
import { createDb } from "../dynamo/client";
import type { Db } from "../dynamo/client";
import { linkedBus, storeOptions } from "../environment";
import { BusPublisher } from "../events/publisher";
import { defaultSecrets } from "../executor/secrets";
import type { SecretSource } from "../executor/secrets";
import { withTools } from "../group/import";
import { Catalog } from "../group/catalog";
import { ensureBuiltins } from "../group/ensure-builtins";
import { getModule, listModules, moduleEventItems, writeModuleEvent } from "../dynamo/modules";
import { registerGroup } from "../group/register";
import { GroupInput, scopeOfGroup } from "../group/schema";
import type { Group } from "../group/schema";
import { SYSTEM } from "../scope/schema";
import { canonicalJson } from "../tool/canonical";
import { nestsDeeperThan, tooDeepMessage } from "../json";
import { describeIssues, safeParseHuman, summarise } from "../validation";
import { moduleError } from "./errors";
import { ModuleEventType } from "./events";
import { ModuleLoaded, ModuleRef, ModuleUnloaded } from "./schema";
import type { ModuleState } from "./schema";

export { MODULE_EVENT_SOURCE, MODULE_EVENTS_PATTERN, ModuleEventType } from "./events";
export { ModuleState } from "./schema";
export { MODULE_ERRORS, moduleError } from "./errors";

export type ModuleEvent = { id: string; "detail-type": string; detail: unknown; time?: string };

/** What applying module events needs: the store and the catalog, with the built-in groups registered before any module, and the secrets MCP servers are reached with. */
export type ModuleStore = { db: Db; catalog: Catalog; secrets?: SecretSource; ready(): Promise<unknown> };

let linked: ModuleStore | undefined;

/** The store (and the bus, for group.changed) SST links, for the module-event function alone: no tokens, roles or native tools are loaded. */
export function linkedModuleStore(): ModuleStore {
  if (linked) return linked;
  const db = createDb(storeOptions());
  const catalog = new Catalog(db, new BusPublisher(linkedBus()));
  let builtins: Promise<unknown> | undefined;
  const ready = () =>
    (builtins ??= ensureBuiltins(db, catalog, new Date().toISOString()).catch((error: unknown) => {
      builtins = undefined;
      throw error;
    }));
  return (linked = { db, catalog, ready });
}

export type EventOutcome =
  | { outcome: "loaded" | "unloaded"; module: string; version: number; groupId: string; warning?: string; unchanged?: true }
  | { outcome: "rejected"; module: string; version: number; reason: ModuleState["reason"] }
  | { outcome: "stale"; module: string; version: number; storedVersion: number }
  | { outcome: "ignored"; reason: string };

export async function get(db: Db, name: string): Promise<ModuleState> {
  const state = await getModule(db, name);
  if (!state) throw moduleError("module_not_found", `No event has been received for a module named "${name}".`);
  return state;
}

export const list = (db: Db) => listModules(db);

type Applying = { db: Db; catalog: Catalog; event: ModuleEvent; module: string; version: number; stored: ModuleState | undefined; now: Date; secrets: SecretSource };

/**
 * Applies a module event: idempotent per event id, ordered per module by version, rejections recorded.
 * An event is stale only when a newer version of its own module is stored; losing a race to any other
 * writer means deciding again. An event that cannot be applied by the deadline throws, so the bus redelivers it.
 */
export async function handleEvent(db: Db, catalog: Catalog, event: ModuleEvent, now: Date, secrets: SecretSource = defaultSecrets()): Promise<EventOutcome> {
  const ref = safeParseHuman(ModuleRef, event.detail);
  if (!ref.success)
    return { outcome: "ignored", reason: `the detail has no valid module name and version: ${summarise(describeIssues(ref.error))}` };
  const apply = event["detail-type"] === ModuleEventType.Loaded ? load : event["detail-type"] === ModuleEventType.Unloaded ? unload : undefined;
  if (!apply) return { outcome: "ignored", reason: `unknown detail-type "${event["detail-type"]}"` };
  const { module, version } = ref.data;
  return untilSettled(db.contentionDeadlineMs, async () => {
    const stored = await getModule(db, module);
    if (stored && stored.version >= version) return { outcome: "stale" as const, module, version, storedVersion: stored.version };
    try {
      return await apply({ db, catalog, event, module, version, stored, now, secrets });
    } catch (error) {
      if (error instanceof ConditionFailedError) return AGAIN;
      throw error;
    }
  });
}

const stateItems = ({ db, event, module, version, now }: Applying, state: Pick<ModuleState, "status" | "groupId" | "reason">) =>
  moduleEventItems(
    db,
    { module, version, updatedAt: now.toISOString(), lastEventId: event.id, ...state },
    event.id,
    Math.floor(now.getTime() / 1000),
  );

/** Records the event without a catalog change; losing the race for the module means deciding again. */
async function record(applying: Applying, state: Pick<ModuleState, "status" | "groupId" | "reason">) {
  const written = await writeModuleEvent(applying.db, stateItems(applying, state));
  if (written !== "ok") throw new ConditionFailedError();
}

async function reject(applying: Applying, groupId: string, reason: NonNullable<ModuleState["reason"]>): Promise<EventOutcome> {
  await record(applying, { status: "rejected", groupId: applying.stored?.groupId ?? groupId, reason });
  return { outcome: "rejected", module: applying.module, version: applying.version, reason };
}

async function load(applying: Applying): Promise<EventOutcome> {
  const { db, catalog, event, module, version, stored, now, secrets } = applying;
  const named = (event.detail as { toolGroupId?: unknown }).toolGroupId;
  const fallbackGroupId = typeof named === "string" ? named : module;
  if (nestsDeeperThan(event.detail))
    return reject(applying, fallbackGroupId, { error: "json_too_deep", message: tooDeepMessage("The module's event detail") });
  const parsed = safeParseHuman(ModuleLoaded, event.detail);
  const input = parsed.success
    ? safeParseHuman(GroupInput, { description: parsed.data.description, tools: parsed.data.tools, executor: parsed.data.executor, scope: parsed.data.scope })
    : parsed;
  if (!input.success) {
    const details = describeIssues(input.error);
    return reject(applying, fallbackGroupId, { error: "invalid_group_def", message: `The module's tool group is not valid: ${summarise(details)}.`, details });
  }
  const target = parsed.data!.toolGroupId ?? module;
  if (stored?.status === "loaded" && stored.groupId === target && sameGroup((await catalog.current()).getGroup(target), module, input.data)) {
    await record(applying, { status: "loaded", groupId: target });
    return { outcome: "loaded", module, version, groupId: target, unchanged: true };
  }
  const replacing = stored?.groupId !== undefined && stored.groupId !== target ? stored.groupId : undefined;
  try {
    const definition = await withTools(input.data, secrets, target);
    const outcome = await registerGroup(
      db,
      catalog,
      target,
      definition,
      { source: "module", module, now: now.toISOString(), ...(replacing ? { replacing } : {}) },
      outsideCatalog(stateItems(applying, { status: "loaded", groupId: target })),
    );
    return { outcome: "loaded", module, version, groupId: target, ...(outcome.warning ? { warning: outcome.warning } : {}) };
  } catch (error) {
    if (isRefusal(error) || importFailed(error)) return reject(applying, target, error.toBody());
    throw error;
  }
}

/**
 * The module's group as the event would register it is already there, the same in every part: a redeployment of the
 * same code. Only its version is recorded; the catalog (and every cached view of it) stays as it is. Tools an MCP
 * server serves are imported, so only an event that lists its tools can be known to be the same.
 */
const sameGroup = (group: Group | undefined, module: string, input: GroupInput) =>
  group !== undefined &&
  group.module === module &&
  input.tools !== undefined &&
  canonicalJson({ description: group.description, tools: group.tools, executor: group.executor, scope: scopeOfGroup(group) }) ===
    canonicalJson({ description: input.description, tools: input.tools, executor: input.executor, scope: input.scope ?? SYSTEM });

/** An MCP server that could not list its tools: redelivering the same event is not what fixes it, a new version or a refresh is. */
const importFailed = (error: unknown): error is ToolgateError => error instanceof ToolgateError && error.code === "mcp_import_failed";

async function unload(applying: Applying): Promise<EventOutcome> {
  const { db, catalog, event, module, version, stored } = applying;
  const parsed = safeParseHuman(ModuleUnloaded, event.detail);
  const groupId = (parsed.success ? parsed.data.toolGroupId : undefined) ?? stored?.groupId ?? module;
  const state = { status: "unloaded" as const, groupId };
  const removed = await catalog.change((manager) => {
    const group = manager.getGroup(groupId);
    if (!group || group.module !== module) return { items: null, result: false };
    return { items: [...groupRemovals(db, group, module), ...outsideCatalog(stateItems(applying, state))], result: true };
  });
  if (!removed) await record(applying, state);
  return { outcome: "unloaded", module, version, groupId };
}
