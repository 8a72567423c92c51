import { GetCommand, PutCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Agent } from "../agent/schema";
import { CallRecord } from "../call/schema";
import { ROOT_ROLE_ID } from "../role/schema";
import { countInRole } from "./agents";
import { waitingIndexFor } from "./calls";
import type { Db } from "./client";
import { agentIndexes, Keys, RUNNING_PREFIX } from "./keys";
import type { Item } from "./query";
import { countInDepartment } from "./departments";
import { attempt } from "./write";
import type { WriteOutcome } from "./write";

type Marker = { pk: string; sk: string };

const markDone = (db: Db, marker: Marker) => db.doc.send(new PutCommand({ TableName: db.table, Item: { ...marker, at: new Date().toISOString() } }));

async function isDone(db: Db, marker: Marker): Promise<boolean> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: marker, ConsistentRead: true }));
  return Item !== undefined;
}

/** A new table holds nothing stored before its indexes and counts: every backfill is done already. */
export async function markBackfilled(db: Db): Promise<void> {
  await Promise.all([markDone(db, Keys.indexesBackfilled()), markDone(db, Keys.departmentsBackfilled())]);
}

export const indexesBackfilled = (db: Db) => isDone(db, Keys.indexesBackfilled());

type Sweep = { filter: string; names: Record<string, string>; values: Record<string, unknown> };

/** The items a sweep looks for: a Scan of the table, run off the request path and only until its backfill is done once. */
async function* sweptItems(db: Db, sweep: Sweep): AsyncGenerator<Item[]> {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new ScanCommand({
        TableName: db.table,
        FilterExpression: sweep.filter,
        ExpressionAttributeNames: sweep.names,
        ExpressionAttributeValues: sweep.values,
        ExclusiveStartKey: cursor,
      }),
    );
    yield (page.Items ?? []) as Item[];
    cursor = page.LastEvaluatedKey;
  } while (cursor);
}

/** Agents and calls stored before the listing indexes existed. */
const UNINDEXED: Sweep = {
  filter: "(sk = :agent AND attribute_not_exists(gsi2pk)) OR (begins_with(sk, :call) AND #call.#status = :awaiting AND begins_with(gsi1pk, :running))",
  names: { "#call": "call", "#status": "status" },
  values: { ":agent": "AGENT", ":call": "CALL#", ":awaiting": "awaiting_confirmation", ":running": RUNNING_PREFIX },
};

/** Active agents of a department stored before departments were counted. */
const UNCOUNTED_IN_DEPARTMENT: Sweep = {
  filter: "sk = :agent AND #agent.#status = :active AND attribute_type(#agent.department, :string) AND attribute_not_exists(inDepartment)",
  names: { "#agent": "agent", "#status": "status" },
  values: { ":agent": "AGENT", ":active": "active", ":string": "S" },
};

const setting = (attributes: Record<string, unknown>) => ({
  expression: Object.keys(attributes).map((name) => `${name} = :${name}`).join(", "),
  values: Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value])),
});

type AgentUpdate = { set: string; condition: string; values: Record<string, unknown> };

/** A conditional change to an agent stored earlier (its condition may read #agent.#status), with the counts it moves, in one transaction. */
const updateAgent = (db: Db, agentId: string, update: AgentUpdate, counts: object[]) =>
  attempt(() =>
    db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.table,
              Key: Keys.agent(agentId),
              UpdateExpression: `SET ${update.set}`,
              ConditionExpression: update.condition,
              ExpressionAttributeNames: { "#agent": "agent", "#status": "status" },
              ExpressionAttributeValues: update.values,
            },
          },
          ...counts,
        ],
      }),
    ),
  );

/** Indexes an agent stored earlier, and counts it in its role if active; a no-op if a newer write got there first. */
function indexAgent(db: Db, agent: Agent) {
  const counted = agent.status === "active" && agent.roleId !== ROOT_ROLE_ID;
  const set = setting({ ...agentIndexes(agent), ...(counted ? { counted: true } : {}) });
  const condition = "attribute_not_exists(gsi2pk) AND #agent.#status = :status AND #agent.tokenVersion = :tokenVersion";
  const values = { ...set.values, ":status": agent.status, ":tokenVersion": agent.tokenVersion };
  return updateAgent(db, agent.id, { set: set.expression, condition, values }, counted ? [countInRole(db, agent.roleId, 1)] : []);
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
export const backfillIndexes = (db: Db): Promise<number> =>
  backfill(db, Keys.indexesBackfilled(), UNINDEXED, (item) =>
    item.sk === "AGENT" ? indexAgent(db, Agent.parse(item.agent)) : indexCall(db, item, CallRecord.parse(item.call)),
  );

/** Counts an active agent stored earlier in its department; a no-op if it was counted or terminated meanwhile. */
const countAgentInDepartment = (db: Db, agent: Agent) =>
  updateAgent(
    db,
    agent.id,
    { set: "inDepartment = :true", condition: "attribute_not_exists(inDepartment) AND #agent.#status = :active", values: { ":true": true, ":active": "active" } },
    [countInDepartment(db, agent.department!, 1)],
  );

/** Counts the active agents stored before departments were counted in their departments, then marks the table done. Idempotent as backfillIndexes. */
export const backfillDepartments = (db: Db): Promise<number> =>
  backfill(db, Keys.departmentsBackfilled(), UNCOUNTED_IN_DEPARTMENT, (item) => countAgentInDepartment(db, Agent.parse(item.agent)));

async function backfill(db: Db, marker: Marker, sweep: Sweep, write: (item: Item) => Promise<WriteOutcome>): Promise<number> {
  if (await isDone(db, marker)) return 0;
  let written = 0;
  for await (const items of sweptItems(db, sweep)) {
    for (const item of items) {
      const outcome = await write(item);
      if (outcome.kind === "contention") throw new Error("A write raced a backfill; it runs again with the next cleanup.");
      if (outcome.kind === "ok") written++;
    }
  }
  await markDone(db, marker);
  return written;
}
