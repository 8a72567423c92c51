import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { WriteConflictError } from "../error";
import { Agent } from "../agent/schema";
import { AGAIN, untilSettled } from "../contention";
import type { Db } from "./client";
import { conditional, whenCondition } from "./errors";
import { Keys } from "./keys";

export async function getAgent(db: Db, id: string): Promise<Agent | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.agent(id), ConsistentRead: true }));
  return Item ? Agent.parse(Item.agent) : undefined;
}

/** Inserts an agent unless one with its id exists; returns false in that case. */
export async function insertAgent(db: Db, agent: Agent): Promise<boolean> {
  return whenCondition(db, () =>
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: { ...Keys.agent(agent.id), agent },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    ),
  );
}

/** Applies a change to an active agent; returns undefined when it is missing or already terminated. */
function updateActive(db: Db, id: string, set: string, values: Record<string, unknown>): Promise<Agent | undefined> {
  return untilSettled(db.contentionDeadlineMs, async () => {
    try {
      const { Attributes } = await conditional(() =>
        db.doc.send(
          new UpdateCommand({
            TableName: db.table,
            Key: Keys.agent(id),
            UpdateExpression: set,
            ConditionExpression: "attribute_exists(pk) AND #agent.#status = :active",
            ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
            ExpressionAttributeValues: { ":active": "active", ...values },
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      return Agent.parse(Attributes?.agent);
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      return error.contended ? AGAIN : undefined;
    }
  });
}

export const terminateAgent = (db: Db, id: string, now: string) =>
  updateActive(db, id, "SET #agent.#status = :terminated, #agent.terminatedAt = :now", {
    ":terminated": "terminated",
    ":now": now,
  });

export const rotateAgentToken = (db: Db, id: string) =>
  updateActive(db, id, "SET #agent.tokenVersion = #agent.tokenVersion + :one", { ":one": 1 });
