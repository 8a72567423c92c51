import { GetCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ModuleState } from "../module/schema";
import type { TransactItem } from "./catalog";
import type { Db } from "./client";
import { conditional } from "./errors";
import { expiryIndex, Index, Keys } from "./keys";

const EVENT_RECORD_TTL_SECONDS = 7 * 86_400;

export async function getModule(db: Db, name: string): Promise<ModuleState | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.module(name), ConsistentRead: true }));
  return Item ? ModuleState.parse(Item.state) : undefined;
}

export async function listModules(db: Db): Promise<ModuleState[]> {
  const modules: ModuleState[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :pk",
        ExpressionAttributeValues: { ":pk": Index.modules.gsi1pk },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) modules.push(ModuleState.parse(item.state));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return modules;
}

/**
 * The writes that record a processed module event: the module's state, only if the event is newer than
 * what is stored, and a dedupe record of the event id, only if it was not processed before.
 */
export function moduleEventItems(db: Db, state: ModuleState, eventId: string, nowSeconds: number): TransactItem[] {
  const eventKey = Keys.event(eventId);
  const expiresAt = nowSeconds + EVENT_RECORD_TTL_SECONDS;
  return [
    {
      Put: {
        TableName: db.table,
        Item: { ...Keys.module(state.module), ...Index.modules, gsi1sk: state.module, state },
        ConditionExpression: "attribute_not_exists(pk) OR #state.#version < :version",
        ExpressionAttributeNames: { "#state": "state", "#version": "version" },
        ExpressionAttributeValues: { ":version": state.version },
      },
    },
    {
      Put: {
        TableName: db.table,
        Item: { ...eventKey, ...expiryIndex(eventKey.pk, expiresAt), expiresAt, module: state.module, version: state.version },
        ConditionExpression: "attribute_not_exists(pk)",
      },
    },
  ];
}

export async function writeItems(db: Db, items: TransactItem[]): Promise<void> {
  await conditional(() => db.doc.send(new TransactWriteCommand({ TransactItems: items })));
}
