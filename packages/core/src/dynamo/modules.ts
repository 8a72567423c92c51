import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ModuleState } from "../module/schema";
import type { TransactItem } from "./catalog";
import type { Db } from "./client";
import { Index, Keys } from "./keys";
import { queryAll } from "./query";
import { attempt } from "./write";

const EVENT_RECORD_TTL_SECONDS = 7 * 86_400;

export async function getModule(db: Db, name: string): Promise<ModuleState | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: Keys.module(name), ConsistentRead: true }));
  return Item ? ModuleState.parse(Item.state) : undefined;
}

export async function listModules(db: Db): Promise<ModuleState[]> {
  const items = await queryAll(db, { IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :pk", ExpressionAttributeValues: { ":pk": Index.modules.gsi1pk } });
  return items.map((item) => ModuleState.parse(item.state));
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
        Item: { ...eventKey, expiresAt, module: state.module, version: state.version },
        ConditionExpression: "attribute_not_exists(pk)",
      },
    },
  ];
}

/** Records a module event on its own (no catalog change): "refused" when the module moved on or the event was seen. */
export async function writeModuleEvent(db: Db, items: TransactItem[]): Promise<"ok" | "refused" | "contention"> {
  return (await attempt(() => db.doc.send(new TransactWriteCommand({ TransactItems: items })))).kind;
}
