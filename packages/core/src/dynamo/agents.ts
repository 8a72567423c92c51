import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { Agent } from "../agent/schema";
import { emptyGuardState } from "../guard/schema";
import type { Db } from "./client";
import { Keys } from "./keys";
import { attempt } from "./write";

export async function getAgent(db: Db, id: string): Promise<Agent | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.agent(id), ConsistentRead: true }));
  return Item ? Agent.parse(Item.agent) : undefined;
}

/** The guard's copy of what decides whether the agent's token is good, written in the same transaction as the agent. */
const guardCopy = (db: Db, agent: Agent) => ({
  Update: {
    TableName: db.table,
    Key: Keys.guard(agent.id),
    UpdateExpression: "SET tokenVersion = :tokenVersion, active = :active, #state = if_not_exists(#state, :empty)",
    ExpressionAttributeNames: { "#state": "state" },
    ExpressionAttributeValues: { ":tokenVersion": agent.tokenVersion, ":active": agent.status === "active", ":empty": emptyGuardState() },
  },
});

/** Inserts an agent unless one with its id exists. */
export async function insertAgent(db: Db, agent: Agent): Promise<"ok" | "exists" | "contention"> {
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: db.table, Item: { ...Keys.agent(agent.id), agent }, ConditionExpression: "attribute_not_exists(pk)" } },
          guardCopy(db, agent),
        ],
      }),
    ),
  );
  return outcome.kind === "refused" ? "exists" : outcome.kind;
}

export type AgentChange = { kind: "ok"; agent: Agent } | { kind: "moved"; current: Agent | undefined } | { kind: "contention" };

/** Replaces an agent read at `previous` (status and token version unchanged since), and the guard's copy with it. */
export async function replaceAgent(db: Db, previous: Agent, next: Agent): Promise<AgentChange> {
  const outcome = await attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: db.table,
              Item: { ...Keys.agent(next.id), agent: next },
              ConditionExpression: "#agent.#status = :status AND #agent.tokenVersion = :tokenVersion",
              ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
              ExpressionAttributeValues: { ":status": previous.status, ":tokenVersion": previous.tokenVersion },
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
          guardCopy(db, next),
        ],
      }),
    ),
  );
  if (outcome.kind === "ok") return { kind: "ok", agent: next };
  if (outcome.kind === "contention") return outcome;
  const current = outcome.current[0]?.agent;
  return { kind: "moved", current: current === undefined ? undefined : Agent.parse(current) };
}
