import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Group } from "../group/schema";
import type { Db } from "./client";
import { getItems, itemAt } from "./batch";
import { queryPages } from "./query";
import type { Item } from "./query";
import { attempt } from "./write";
import { CATALOG_PK, CEDAR_SK_PREFIX, GROUP_SK_PREFIX, Keys, POLICY_SK_PREFIX, SCOPED_SK_PREFIX } from "./keys";
import { scopeOfGroup } from "../group/schema";
import { SYSTEM } from "../scope/schema";
import type { GroupScope } from "../scope/schema";
import type { PolicyOverride } from "../policy/schema";
import type { StoredPolicy } from "../policy/schema";

export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

export async function readCatalogVersion(db: Db): Promise<number> {
  const { Item } = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: Keys.catalogVersion(), ConsistentRead: true }),
  );
  return typeof Item?.version === "number" ? Item.version : 0;
}

export async function readCatalogItems(db: Db): Promise<{ groups: Group[]; overrides: Map<string, PolicyOverride>; policies: Map<string, StoredPolicy> }> {
  const groups: Group[] = [];
  const overrides = new Map<string, PolicyOverride>();
  const policies = new Map<string, StoredPolicy>();
  for await (const page of queryPages(db, { KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": CATALOG_PK }, ConsistentRead: true })) {
    for (const item of page) {
      const sk = String(item.sk);
      // Stored groups were validated when written; re-checking 20,000 schemas on every cold load costs more than the read.
      if (sk.startsWith(GROUP_SK_PREFIX)) groups.push(groupOf(item));
      else if (sk.startsWith(SCOPED_SK_PREFIX)) continue;
      else if (sk.startsWith(POLICY_SK_PREFIX)) overrides.set(sk.slice(POLICY_SK_PREFIX.length), item.override as PolicyOverride);
      else if (sk.startsWith(CEDAR_SK_PREFIX)) policies.set(sk.slice(CEDAR_SK_PREFIX.length), policyOf(item));
    }
  }
  return { groups, overrides, policies };
}

const policyOf = (item: Item) => JSON.parse(String(item.policy)) as StoredPolicy;

/** The catalog partition's items of one kind (a sort-key prefix), by the rest of their sort key, without the groups. */
async function readKind<T>(db: Db, prefix: string, valueOf: (item: Item) => T): Promise<Map<string, T>> {
  const values = new Map<string, T>();
  const query = { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": CATALOG_PK, ":prefix": prefix }, ConsistentRead: true };
  for await (const page of queryPages(db, query)) for (const item of page) values.set(String(item.sk).slice(prefix.length), valueOf(item));
  return values;
}

/** Every Cedar policy. */
export const readCedarPolicies = (db: Db): Promise<Map<string, StoredPolicy>> => readKind(db, CEDAR_SK_PREFIX, policyOf);

const groupOf = (item: Item) => JSON.parse(String(item.group)) as Group;

const groupsAmong = (items: Map<string, Item>, groupIds: readonly string[]) =>
  new Map(groupIds.flatMap((id) => {
    const item = itemAt(items, Keys.group(id));
    return item ? [[id, groupOf(item)] as const] : [];
  }));

/** Some groups of the catalog, by id (strongly consistent); an id not registered is absent from the answer. */
export async function readGroups(db: Db, groupIds: readonly string[]): Promise<Map<string, Group>> {
  return groupsAmong(await getItems(db, groupIds.map((id) => Keys.group(id))), groupIds);
}

/**
 * The same, and in the same round trip the edition of the shipped policies the table holds (a cold start's check): 0
 * before any was written, 1 for the first set (whose marker carries no edition).
 */
export async function readGroupsAndShipped(db: Db, groupIds: readonly string[]): Promise<{ groups: Map<string, Group>; shippedEdition: number }> {
  const items = await getItems(db, [...groupIds.map((id) => Keys.group(id)), Keys.shippedPolicies()]);
  const marker = itemAt(items, Keys.shippedPolicies());
  return { groups: groupsAmong(items, groupIds), shippedEdition: marker === undefined ? 0 : typeof marker.edition === "number" ? marker.edition : 1 };
}

/** The groups of one department or one agent, from their copies beside each other (strongly consistent). */
export async function readScopedGroups(db: Db, scope: GroupScope): Promise<Group[]> {
  const groups = await readKind(db, `${SCOPED_SK_PREFIX}${scope}#`, groupOf);
  // A department's name may hold "#": another scope's copies can share the prefix, and are not this scope's.
  return [...groups.values()].filter((group) => scopeOfGroup(group) === scope);
}

/** Every policy override (a few small items beside the groups in the catalog's partition). */
export const readOverrides = (db: Db): Promise<Map<string, PolicyOverride>> => readKind(db, POLICY_SK_PREFIX, (item) => item.override as PolicyOverride);

/** What a catalog item does to the catalog, so a process can move its cached snapshot on by its own write. */
export type CatalogEffect =
  | { kind: "put_group"; group: Group }
  | { kind: "delete_group"; groupId: string }
  | { kind: "put_override"; toolName: string; override: PolicyOverride }
  | { kind: "put_policy"; policy: StoredPolicy }
  | { kind: "delete_policy"; id: string };

/** One write of a catalog transaction; items outside the catalog partition (module state, event records) have no effect. */
export type CatalogItem = { write: TransactItem; effect?: CatalogEffect };

export const outsideCatalog = (writes: TransactItem[]): CatalogItem[] => writes.map((write) => ({ write }));

export const putOverrideItem = (db: Db, toolName: string, override: PolicyOverride): CatalogItem => ({
  write: { Put: { TableName: db.table, Item: { ...Keys.policy(toolName), override } } },
  effect: { kind: "put_override", toolName, override },
});

/** A Cedar policy, as JSON text; `expectedVersion` (0: new) makes a stale change fail its condition. */
export const putCedarPolicyItem = (db: Db, policy: StoredPolicy, expectedVersion?: number): CatalogItem => ({
  write: {
    Put: {
      TableName: db.table,
      Item: { ...Keys.cedarPolicy(policy.id), version: policy.version, policy: JSON.stringify(policy) },
      ...versionCondition(expectedVersion),
    },
  },
  effect: { kind: "put_policy", policy },
});

export const deleteCedarPolicyItem = (db: Db, id: string, expectedVersion?: number): CatalogItem => ({
  write: { Delete: { TableName: db.table, Key: Keys.cedarPolicy(id), ...versionCondition(expectedVersion ?? -1) } },
  effect: { kind: "delete_policy", id },
});

/** -1: the item must exist; 0: it must not; n: it must be at version n; undefined: no condition. */
function versionCondition(expected: number | undefined) {
  if (expected === undefined) return {};
  if (expected === -1) return { ConditionExpression: "attribute_exists(pk)" };
  if (expected === 0) return { ConditionExpression: "attribute_not_exists(pk)" };
  return { ConditionExpression: "version = :expected", ExpressionAttributeValues: { ":expected": expected } };
}

/** Written with the shipped policies of an edition, over the one read: two processes starting together write them once. */
export const shippedPoliciesMarkerItem = (db: Db, edition: number, previous: number): CatalogItem => ({
  write: {
    Put: {
      TableName: db.table,
      Item: { ...Keys.shippedPolicies(), edition },
      ...(previous === 0
        ? { ConditionExpression: "attribute_not_exists(pk)" }
        : previous === 1
          ? { ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(edition)" }
          : { ConditionExpression: "edition = :previous", ExpressionAttributeValues: { ":previous": previous } }),
    },
  },
});

const bumpVersion = (db: Db, expectedVersion: number): TransactItem => ({
  Update: {
    TableName: db.table,
    Key: Keys.catalogVersion(),
    UpdateExpression: "SET version = :next",
    ConditionExpression: expectedVersion === 0 ? "attribute_not_exists(version)" : "version = :expected",
    ExpressionAttributeValues:
      expectedVersion === 0 ? { ":next": 1 } : { ":next": expectedVersion + 1, ":expected": expectedVersion },
  },
});

/** Groups are stored as JSON text: tool schemas may nest deeper than DynamoDB's 32 levels of maps. */
export const putGroupItem = (db: Db, group: Group): CatalogItem => ({
  write: { Put: { TableName: db.table, Item: { ...Keys.group(group.id), ...(group.module ? { module: group.module } : {}), group: JSON.stringify(group) } } },
  effect: { kind: "put_group", group },
});

const scopedCopy = (db: Db, group: Group): CatalogItem => ({
  write: { Put: { TableName: db.table, Item: { ...Keys.scopedGroup(scopeOfGroup(group), group.id), group: JSON.stringify(group) } } },
});

const deleteScopedCopy = (db: Db, group: Group): CatalogItem => ({ write: { Delete: { TableName: db.table, Key: Keys.scopedGroup(scopeOfGroup(group), group.id) } } });

/** A group's writes: by id, and for a department's or an agent's group its copy beside its scope's (the old copy goes when its scope changed). */
export function groupWrites(db: Db, group: Group, previous?: Group): CatalogItem[] {
  const scope = scopeOfGroup(group);
  const moved = previous !== undefined && scopeOfGroup(previous) !== SYSTEM && scopeOfGroup(previous) !== scope;
  return [putGroupItem(db, group), ...(scope === SYSTEM ? [] : [scopedCopy(db, group)]), ...(moved ? [deleteScopedCopy(db, previous)] : [])];
}

/** A group's removal: by id (only if the module still owns it, when one is named) and its copy beside its scope's. */
export const groupRemovals = (db: Db, group: Group, onlyIfModule?: string): CatalogItem[] => [
  deleteGroupItem(db, group.id, onlyIfModule),
  ...(scopeOfGroup(group) === SYSTEM ? [] : [deleteScopedCopy(db, group)]),
];

export const deleteGroupItem = (db: Db, groupId: string, onlyIfModule?: string): CatalogItem => ({
  write: {
    Delete: {
      TableName: db.table,
      Key: Keys.group(groupId),
      ...(onlyIfModule === undefined
        ? { ConditionExpression: "attribute_exists(pk)" }
        : {
            ConditionExpression: "attribute_exists(pk) AND #module = :module",
            ExpressionAttributeNames: { "#module": "module" },
            ExpressionAttributeValues: { ":module": onlyIfModule },
          }),
    },
  },
  effect: { kind: "delete_group", groupId },
});

/** The item a write touches; one transaction may touch an item only once. */
export function itemKey({ write }: CatalogItem): string {
  const key = (write.Put?.Item ?? write.Delete?.Key ?? write.Update?.Key ?? write.ConditionCheck?.Key ?? {}) as Record<string, unknown>;
  return `${String(key.pk)}\u0000${String(key.sk)}`;
}

/** DynamoDB's limits for one transaction: 100 items (one is the version bump) and 4 MB. */
export const MAX_CATALOG_ITEMS = 99;
export const MAX_CATALOG_BYTES = 3_500_000;

export const itemBytes = ({ write }: CatalogItem) => Buffer.byteLength(JSON.stringify(write), "utf8");

export type CatalogWrite =
  | { kind: "ok"; version: number }
  | { kind: "stale" }
  | { kind: "contention" }
  | { kind: "refused"; failed: boolean[] };

/**
 * Writes catalog changes as one transaction guarded by the catalog version, so all catalog writes serialise.
 * "stale": another writer moved the version on; "contention": a transaction held an item at the same moment;
 * "refused": some of the caller's own items failed their condition (`failed` is positioned as `items`).
 */
export async function writeCatalog(db: Db, expectedVersion: number, items: CatalogItem[]): Promise<CatalogWrite> {
  const outcome = await attempt(() =>
    db.doc.send(new TransactWriteCommand({ TransactItems: [bumpVersion(db, expectedVersion), ...items.map((item) => item.write)] })),
  );
  if (outcome.kind === "ok") return { kind: "ok", version: expectedVersion + 1 };
  if (outcome.kind === "contention") return outcome;
  if (outcome.failed[0]) return { kind: "stale" };
  return { kind: "refused", failed: outcome.failed.slice(1) };
}
