import { GetCommand, PutCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Agent } from "../agent/schema";
import { CallRecord } from "../call/schema";
import { ROOT_ROLE_ID } from "../role/schema";
import { countInRole } from "./agents";
import { waitingIndexFor } from "./calls";
import type { Db } from "./client";
import { agentIndexes, Keys, RUNNING_PREFIX } from "./keys";
import type { Item } from "./query";
import { attempt } from "./write";

export async function markIndexesBackfilled(db: Db): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...Keys.indexesBackfilled(), at: new Date().toISOString() } }));
}

export async function indexesBackfilled(db: Db): Promise<boolean> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.indexesBackfilled(), ConsistentRead: true }));
  return Item !== undefined;
}

/** Agents and calls stored before the listing indexes existed: a sweep of the table, run off the request path and only until it is done once. */
async function* unindexedItems(db: Db): AsyncGenerator<Item[]> {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new ScanCommand({
        TableName: db.table,
        FilterExpression:
          "(sk = :agent AND attribute_not_exists(gsi2pk)) OR (begins_with(sk, :call) AND #call.#status = :awaiting AND begins_with(gsi1pk, :running))",
        ExpressionAttributeNames: { "#call": "call", "#status": "status" },
        ExpressionAttributeValues: { ":agent": "AGENT", ":call": "CALL#", ":awaiting": "awaiting_confirmation", ":running": RUNNING_PREFIX },
        ExclusiveStartKey: cursor,
      }),
    );
    yield (page.Items ?? []) as Item[];
    cursor = page.LastEvaluatedKey;
  } while (cursor);
}

const setting = (attributes: Record<string, unknown>) => ({
  expression: Object.keys(attributes).map((name) => `${name} = :${name}`).join(", "),
  values: Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value])),
});

/** Indexes an agent stored earlier, and counts it in its role if active; a no-op if a newer write got there first. */
async function indexAgent(db: Db, agent: Agent) {
  const counted = agent.status === "active" && agent.roleId !== ROOT_ROLE_ID;
  const set = setting({ ...agentIndexes(agent), ...(counted ? { counted: true } : {}) });
  return attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.table,
              Key: Keys.agent(agent.id),
              UpdateExpression: `SET ${set.expression}`,
              ConditionExpression: "attribute_not_exists(gsi2pk) AND #agent.#status = :status AND #agent.tokenVersion = :tokenVersion",
              ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
              ExpressionAttributeValues: { ...set.values, ":status": agent.status, ":tokenVersion": agent.tokenVersion },
            },
          },
          ...(counted ? [countInRole(db, agent.roleId, 1)] : []),
        ],
      }),
    ),
  );
}

/** Moves a call stored earlier that awaits an answer to the approval queue's shards; a no-op if it changed since. */
async function indexCall(db: Db, item: Item, call: CallRecord) {
  const set = setting({ ...waitingIndexFor(call, String(item.pk)) });
  return attempt(() =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: "#call.#status = :status AND begins_with(gsi1pk, :running)",
        ExpressionAttributeNames: { "#call": "call", "#status": "status" },
        ExpressionAttributeValues: { ...set.values, ":status": call.status, ":running": RUNNING_PREFIX },
      }),
    ),
  );
}

/**
 * Gives agents and calls stored before the listing indexes their index attributes (and active agents their place in
 * their role's count), then marks the table done. Idempotent: each write is conditional on the item still lacking
 * them, and a finished backfill costs one read.
 */
export async function backfillIndexes(db: Db): Promise<number> {
  if (await indexesBackfilled(db)) return 0;
  let indexed = 0;
  for await (const items of unindexedItems(db)) {
    for (const item of items) {
      const outcome = item.sk === "AGENT" ? await indexAgent(db, Agent.parse(item.agent)) : await indexCall(db, item, CallRecord.parse(item.call));
      if (outcome.kind === "contention") throw new Error("A write raced the index backfill; it runs again with the next cleanup.");
      if (outcome.kind === "ok") indexed++;
    }
  }
  await markIndexesBackfilled(db);
  return indexed;
}
