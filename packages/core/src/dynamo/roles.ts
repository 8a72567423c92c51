import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { conflict, WriteConflictError } from "../error";
import { AGAIN, untilSettled } from "../contention";
import { Role } from "../role/schema";
import type { Db } from "./client";
import { conditional } from "./errors";
import { Index, Keys } from "./keys";

const roleItem = (role: Role) => ({
  ...Keys.role(role.id),
  ...Index.roles,
  gsi1sk: `${role.name.toLowerCase()}#${role.id}`,
  role,
});

const nameTaken = (name: string) =>
  conflict("role_name_taken", `A role named "${name}" already exists; role names are unique (ignoring case).`, {
    name,
  });

export async function getRole(db: Db, id: string): Promise<Role | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.role(id), ConsistentRead: true }));
  return Item ? Role.parse(Item.role) : undefined;
}

/** One round trip for a role and the catalog version, the two reads every visibility decision needs. */
export async function getRoleAndCatalogVersion(db: Db, roleId: string): Promise<{ role?: Role; catalogVersion: number }> {
  const roleKey = Keys.role(roleId);
  const versionKey = Keys.catalogVersion();
  let pending: Record<string, unknown>[] = [roleKey, versionKey];
  let role: Role | undefined;
  let catalogVersion = 0;
  while (pending.length) {
    const result = await db.doc.send(
      new BatchGetCommand({ RequestItems: { [db.table]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of result.Responses?.[db.table] ?? []) {
      if (item.pk === roleKey.pk) role = Role.parse(item.role);
      else if (item.pk === versionKey.pk && typeof item.version === "number") catalogVersion = item.version;
    }
    pending = (result.UnprocessedKeys?.[db.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return { role, catalogVersion };
}

export async function getRoleIdByName(db: Db, name: string): Promise<string | undefined> {
  const { Item } = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: Keys.roleName(name), ConsistentRead: true }),
  );
  return typeof Item?.roleId === "string" ? Item.roleId : undefined;
}

export async function listRoles(db: Db): Promise<Role[]> {
  const roles: Role[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :pk",
        ExpressionAttributeValues: { ":pk": Index.roles.gsi1pk },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) roles.push(Role.parse(item.role));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return roles;
}

const claimName = (db: Db, role: Role) => ({
  Put: { TableName: db.table, Item: { ...Keys.roleName(role.name), roleId: role.id }, ConditionExpression: "attribute_not_exists(pk)" },
});

/** Creates a role and claims its name; false when a role with its id exists (creating root is idempotent). */
export function insertRole(db: Db, role: Role): Promise<boolean> {
  return untilSettled(db.contentionDeadlineMs, async () => {
    try {
      await conditional(() =>
        db.doc.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: db.table, Item: roleItem(role), ConditionExpression: "attribute_not_exists(pk)" } }, claimName(db, role)],
          }),
        ),
      );
      return true;
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      if (error.contended) return AGAIN;
      if (error.refused(0)) return false;
      throw nameTaken(role.name);
    }
  });
}

/**
 * Replaces a role if it is still at the version it was read at; moves its name claim when the name changed.
 * "stale": the role changed since; "contention": another transaction held it at the same moment.
 */
export async function replaceRole(db: Db, previous: Role, next: Role): Promise<"ok" | "stale" | "contention"> {
  const renamed = previous.name.toLowerCase() !== next.name.toLowerCase();
  try {
    await conditional(() =>
      db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: db.table,
                Item: roleItem(next),
                ConditionExpression: "#role.#version = :expected",
                ExpressionAttributeNames: { "#role": "role", "#version": "version" },
                ExpressionAttributeValues: { ":expected": previous.version },
              },
            },
            ...(renamed ? [claimName(db, next), { Delete: { TableName: db.table, Key: Keys.roleName(previous.name) } }] : []),
          ],
        }),
      ),
    );
    return "ok";
  } catch (error) {
    if (!(error instanceof WriteConflictError)) throw error;
    if (error.contended) return "contention";
    if (error.refused(1)) throw nameTaken(next.name);
    return "stale";
  }
}
