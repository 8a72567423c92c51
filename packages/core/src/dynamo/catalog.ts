import { GetCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { Group } from "../group/index";
import type { Db } from "./client";
import { conditional } from "./errors";
import { CATALOG_PK, GROUP_SK_PREFIX, Keys } from "./keys";

export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

export async function readCatalogVersion(db: Db): Promise<number> {
  const { Item } = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: Keys.catalogVersion(), ConsistentRead: true }),
  );
  return typeof Item?.version === "number" ? Item.version : 0;
}

export async function readGroups(db: Db): Promise<Group[]> {
  const groups: Group[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": CATALOG_PK, ":prefix": GROUP_SK_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) groups.push(Group.parse(item.group));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return groups;
}

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

export const putGroupItem = (db: Db, group: Group): TransactItem => ({
  Put: { TableName: db.table, Item: { ...Keys.group(group.id), group } },
});

export const deleteGroupItem = (db: Db, groupId: string, onlyIfModule?: string): TransactItem => ({
  Delete: {
    TableName: db.table,
    Key: Keys.group(groupId),
    ...(onlyIfModule === undefined
      ? { ConditionExpression: "attribute_exists(pk)" }
      : {
          ConditionExpression: "attribute_exists(pk) AND #group.#module = :module",
          ExpressionAttributeNames: { "#group": "group", "#module": "module" },
          ExpressionAttributeValues: { ":module": onlyIfModule },
        }),
  },
});

/**
 * Writes catalog changes as one transaction guarded by the catalog version, so all catalog writes serialise.
 * The version bump comes first: a WriteConflictError whose reasons[0] is set means the catalog moved on.
 */
export async function writeCatalog(db: Db, expectedVersion: number, items: TransactItem[]): Promise<number> {
  await conditional(() =>
    db.doc.send(new TransactWriteCommand({ TransactItems: [bumpVersion(db, expectedVersion), ...items] })),
  );
  return expectedVersion + 1;
}
