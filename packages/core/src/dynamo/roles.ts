import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { Role } from "../role/schema";
import { getItems, itemAt } from "./batch";
import type { Db } from "./client";
import { Index, Keys } from "./keys";
import { queryAll } from "./query";
import { attempt } from "./write";

const roleItem = (role: Role) => ({
  ...Keys.role(role.id),
  ...Index.roles,
  gsi1sk: `${role.name.toLowerCase()}#${role.id}`,
  role,
});

export async function getRole(db: Db, id: string): Promise<Role | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.role(id), ConsistentRead: true }));
  return Item ? Role.parse(Item.role) : undefined;
}

/** One round trip for a role and the catalog version, the two reads every visibility decision needs. */
export async function getRoleAndCatalogVersion(db: Db, roleId: string): Promise<{ role?: Role; catalogVersion: number }> {
  const items = await getItems(db, [Keys.role(roleId), Keys.catalogVersion()]);
  const role = itemAt(items, Keys.role(roleId));
  const version = itemAt(items, Keys.catalogVersion())?.version;
  return { ...(role ? { role: Role.parse(role.role) } : {}), catalogVersion: typeof version === "number" ? version : 0 };
}

/** The versions alone (nothing to parse): what proves a cached role and catalog current. */
export async function getRoleAndCatalogVersions(db: Db, roleId: string): Promise<{ roleVersion?: number; catalogVersion: number }> {
  const items = await getItems(db, [Keys.role(roleId), Keys.catalogVersion()], {
    expression: "#role.#version, #version",
    names: { "#role": "role", "#version": "version" },
  });
  const roleVersion = (itemAt(items, Keys.role(roleId))?.role as { version?: unknown } | undefined)?.version;
  const catalogVersion = itemAt(items, Keys.catalogVersion())?.version;
  return { ...(typeof roleVersion === "number" ? { roleVersion } : {}), catalogVersion: typeof catalogVersion === "number" ? catalogVersion : 0 };
}

export async function getRoleIdByName(db: Db, name: string): Promise<string | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.roleName(name), ConsistentRead: true }));
  return typeof Item?.roleId === "string" ? Item.roleId : undefined;
}

export async function listRoles(db: Db): Promise<Role[]> {
  const items = await queryAll(db, { IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :pk", ExpressionAttributeValues: { ":pk": Index.roles.gsi1pk } });
  return items.map((item) => Role.parse(item.role));
}

const claimName = (db: Db, role: Role) => ({
  Put: { TableName: db.table, Item: { ...Keys.roleName(role.name), roleId: role.id }, ConditionExpression: "attribute_not_exists(pk)" },
});

/** Creates a role and claims its name: "exists" when a role with its id is there (creating root is idempotent). */
export async function insertRole(db: Db, role: Role): Promise<"ok" | "exists" | "name_taken" | "contention"> {
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: db.table, Item: roleItem(role), ConditionExpression: "attribute_not_exists(pk)" } }, claimName(db, role)],
      }),
    ),
  );
  if (outcome.kind !== "refused") return outcome.kind;
  return outcome.failed[0] ? "exists" : "name_taken";
}

export type RoleReplace = { kind: "ok" } | { kind: "stale"; current: Role | undefined } | { kind: "name_taken" } | { kind: "contention" };

/** Replaces a role if it is still at the version it was read at; moves its name claim when the name changed. */
export async function replaceRole(db: Db, previous: Role, next: Role): Promise<RoleReplace> {
  const renamed = previous.name.toLowerCase() !== next.name.toLowerCase();
  const outcome = await attempt(() =>
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
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          ...(renamed ? [claimName(db, next), { Delete: { TableName: db.table, Key: Keys.roleName(previous.name) } }] : []),
        ],
      }),
    ),
  );
  if (outcome.kind !== "refused") return outcome;
  if (outcome.failed[1]) return { kind: "name_taken" };
  const current = outcome.current[0]?.role;
  return { kind: "stale", current: current === undefined ? undefined : Role.parse(current) };
}

export type RoleDelete =
  | { kind: "ok" }
  | { kind: "stale"; current: Role | undefined }
  | { kind: "in_use"; activeAgents: number }
  | { kind: "indexes_pending" }
  | { kind: "contention" };

/**
 * Deletes a role read at its version, with its name claim, if no active agent is bound to it. The count of its
 * active agents is kept by the transactions that create and terminate them (which also check that the role exists),
 * so an agent created meanwhile either lands first and is counted here, or finds the role gone.
 */
export async function deleteRole(db: Db, role: Role): Promise<RoleDelete> {
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: db.table,
              Key: Keys.role(role.id),
              ConditionExpression: "#role.#version = :version",
              ExpressionAttributeNames: { "#role": "role", "#version": "version" },
              ExpressionAttributeValues: { ":version": role.version },
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          { Delete: { TableName: db.table, Key: Keys.roleName(role.name) } },
          {
            Delete: {
              TableName: db.table,
              Key: Keys.roleAgents(role.id),
              ConditionExpression: "attribute_not_exists(pk) OR activeAgents <= :none",
              ExpressionAttributeValues: { ":none": 0 },
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          { ConditionCheck: { TableName: db.table, Key: Keys.indexesBackfilled(), ConditionExpression: "attribute_exists(pk)" } },
        ],
      }),
    ),
  );
  if (outcome.kind !== "refused") return outcome;
  if (outcome.failed[0]) {
    const current = outcome.current[0]?.role;
    return { kind: "stale", current: current === undefined ? undefined : Role.parse(current) };
  }
  if (outcome.failed[2]) return { kind: "in_use", activeAgents: Number(outcome.current[2]?.activeAgents ?? 0) };
  return { kind: "indexes_pending" };
}
