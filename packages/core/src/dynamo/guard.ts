import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { emptyGuardState, GuardRecord } from "../guard/schema";
import type { GuardState } from "../guard/schema";
import { Role } from "../role/schema";
import { getItems, itemAt } from "./batch";
import type { Db } from "./client";
import { admittedIndex, Keys } from "./keys";
import type { Item } from "./query";
import { attempt } from "./write";

/** The guard's record of an agent as stored, or a fresh one when there is none yet. */
export type StoredGuard = GuardRecord & { exists: boolean };

const storedGuard = (item: Item | undefined): StoredGuard =>
  item ? { ...GuardRecord.parse({ state: item.state ?? emptyGuardState(), tokenVersion: item.tokenVersion, active: item.active }), exists: true } : { state: emptyGuardState(), exists: false };

export async function readGuard(db: Db, agentId: string): Promise<StoredGuard> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.guard(agentId), ConsistentRead: true }));
  return storedGuard(Item as Item | undefined);
}

const readCatalogVersionOf = (item: Item | undefined) => (typeof item?.version === "number" ? item.version : 0);

/** What admitting a call on a cold process needs, in one round trip: the role, the catalog's version and the guard's record. */
export async function readAdmissionStart(db: Db, agentId: string, roleId: string) {
  const items = await getItems(db, [Keys.role(roleId), Keys.catalogVersion(), Keys.guard(agentId)]);
  const role = itemAt(items, Keys.role(roleId));
  return {
    role: role ? Role.parse(role.role) : undefined,
    catalogVersion: readCatalogVersionOf(itemAt(items, Keys.catalogVersion())),
    guard: storedGuard(itemAt(items, Keys.guard(agentId))),
  };
}

export type GuardWrite = {
  agentId: string;
  /** The record the next state was computed from; its token copy is proven unchanged by the same write. */
  previous: StoredGuard;
  next: GuardState;
  /** The token version the caller presented, checked against the stored copy (or, with no copy yet, read fresh by the caller). */
  tokenVersion: number;
  /** When a call was admitted by this write (epoch ms): the agent is then indexed for cleanup under that hour. */
  admittedAt?: number;
};

export type GuardOutcome = { kind: "ok" } | { kind: "stale"; of: "guard" | "agent"; current: StoredGuard } | { kind: "contention" };

function condition({ previous, tokenVersion }: GuardWrite) {
  if (!previous.exists) return { ConditionExpression: "attribute_not_exists(pk)" };
  const seq = { "#state": "state", "#seq": "seq" };
  if (previous.tokenVersion === undefined)
    return { ConditionExpression: "#state.#seq = :seq AND attribute_not_exists(tokenVersion)", names: seq, values: { ":seq": previous.state.seq } };
  return {
    ConditionExpression: "#state.#seq = :seq AND tokenVersion = :tokenVersion AND active = :active",
    names: seq,
    values: { ":seq": previous.state.seq, ":tokenVersion": tokenVersion, ":active": true },
  };
}

/**
 * Moves the agent's guard state on by compare-and-set, proving in the same write that the agent is active with the
 * token version the caller presented: "stale" of "guard" when another admission got there first, of "agent" when the
 * token was revoked or the agent terminated. The record as it is now comes back with the answer.
 */
export async function writeGuardState(db: Db, write: GuardWrite): Promise<GuardOutcome> {
  const { ConditionExpression, names, values } = condition(write);
  const admitted = write.admittedAt === undefined ? undefined : admittedIndex(write.agentId, write.admittedAt);
  const outcome = await attempt(() =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: Keys.guard(write.agentId),
        UpdateExpression: `SET #state = :next, tokenVersion = :tokenVersion, active = :active${admitted ? ", gsi3pk = :gsi3pk, gsi3sk = :gsi3sk" : ""}`,
        ConditionExpression,
        ExpressionAttributeNames: { ...names, "#state": "state" },
        ExpressionAttributeValues: {
          ...values,
          ":next": write.next,
          ":tokenVersion": write.tokenVersion,
          ":active": true,
          ...(admitted ? { ":gsi3pk": admitted.gsi3pk, ":gsi3sk": admitted.gsi3sk } : {}),
        },
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    ),
  );
  if (outcome.kind !== "refused") return outcome;
  const current = storedGuard(outcome.current[0]);
  const guardMoved = current.exists !== write.previous.exists || current.state.seq !== write.previous.state.seq;
  return { kind: "stale", of: guardMoved ? "guard" : "agent", current };
}
