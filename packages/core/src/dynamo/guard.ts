import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { Agent } from "../agent/schema";
import type { CallRecord } from "../call/schema";
import { GuardState, emptyGuardState } from "../guard/state";
import type { Role } from "../role/schema";
import type { TransactItem } from "./catalog";
import type { Db } from "./client";
import { callItem } from "./calls";
import { conditional } from "./errors";
import { expiryIndex, Keys } from "./keys";

export async function readGuardState(db: Db, agentId: string): Promise<GuardState> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.guard(agentId), ConsistentRead: true }));
  return Item ? GuardState.parse(Item.state) : emptyGuardState();
}

export type AdmissionWrite = {
  agent: Agent;
  role: Role;
  catalogVersion: number;
  previous: GuardState;
  next: GuardState;
  record: CallRecord;
  expiresAt: number;
  /** Kept beside the call until an approval or a client's result settles it: the real arguments, sealed. */
  sealedArguments?: string;
};

/** Positions of the items in the admission transaction, for reading its cancellation reasons. */
export const AdmissionItem = { agent: 0, role: 1, catalog: 2, guard: 3, call: 4 } as const;

/**
 * The one round trip that admits a call: it confirms the cached agent, role and catalog are current,
 * moves the guard state on from the version it was computed from, and records the call's start.
 */
export async function writeAdmission(db: Db, write: AdmissionWrite): Promise<void> {
  const { agent, role, record } = write;
  const items: TransactItem[] = [
    {
      ConditionCheck: {
        TableName: db.table,
        Key: Keys.agent(agent.id),
        ConditionExpression: "#agent.#status = :active AND #agent.tokenVersion = :tokenVersion",
        ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
        ExpressionAttributeValues: { ":active": "active", ":tokenVersion": agent.tokenVersion },
      },
    },
    {
      ConditionCheck: {
        TableName: db.table,
        Key: Keys.role(role.id),
        ConditionExpression: "#role.#version = :version",
        ExpressionAttributeNames: { "#role": "role", "#version": "version" },
        ExpressionAttributeValues: { ":version": role.version },
      },
    },
    {
      ConditionCheck: {
        TableName: db.table,
        Key: Keys.catalogVersion(),
        ConditionExpression: write.catalogVersion === 0 ? "attribute_not_exists(version)" : "version = :version",
        ...(write.catalogVersion === 0 ? {} : { ExpressionAttributeValues: { ":version": write.catalogVersion } }),
      },
    },
    {
      Put: {
        TableName: db.table,
        Item: { ...Keys.guard(agent.id), state: write.next },
        ConditionExpression: write.previous.seq === 0 ? "attribute_not_exists(pk)" : "#state.seq = :seq",
        ...(write.previous.seq === 0
          ? {}
          : { ExpressionAttributeNames: { "#state": "state" }, ExpressionAttributeValues: { ":seq": write.previous.seq } }),
      },
    },
    { Put: { TableName: db.table, Item: callItem(record, write.expiresAt), ConditionExpression: "attribute_not_exists(pk)" } },
  ];
  if (write.sealedArguments)
    items.push({
      Put: {
        TableName: db.table,
        Item: {
          ...Keys.callRef(record.callId),
          ...expiryIndex(Keys.callRef(record.callId).pk, write.expiresAt),
          agentId: agent.id,
          sealed: write.sealedArguments,
          expiresAt: write.expiresAt,
        },
      },
    });
  await conditional(() => db.doc.send(new TransactWriteCommand({ TransactItems: items })));
}
