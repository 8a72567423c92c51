import { BatchWriteCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Db } from "./client";
import { forgetPendingArguments } from "./calls";
import { whenCondition } from "./errors";
import { EXPIRES_PREFIX, expiryIndex, indexUpTo, RUNNING_PREFIX, shardsOf } from "./keys";

type Key = { pk: string; sk: string };

async function* dueItems(db: Db, prefix: string, nowSeconds: number) {
  for (const shard of shardsOf(prefix)) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await db.doc.send(
        new QueryCommand({
          TableName: db.table,
          IndexName: "gsi1",
          KeyConditionExpression: "gsi1pk = :shard AND gsi1sk <= :due",
          ExpressionAttributeValues: { ":shard": shard, ":due": indexUpTo(nowSeconds) },
          ExclusiveStartKey: cursor,
        }),
      );
      yield (page.Items ?? []) as Array<Key & Record<string, unknown>>;
      cursor = page.LastEvaluatedKey;
    } while (cursor);
  }
}

/** Deletes every item whose expiry has passed; returns how many. */
export async function deleteExpired(db: Db, nowSeconds: number): Promise<number> {
  let deleted = 0;
  for await (const items of dueItems(db, EXPIRES_PREFIX, nowSeconds)) {
    for (let i = 0; i < items.length; i += 25) {
      let requests = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
      while (requests.length) {
        const result = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.table]: requests } }));
        requests = (result.UnprocessedItems?.[db.table] as typeof requests | undefined) ?? [];
      }
      deleted += Math.min(25, items.length - i);
    }
  }
  return deleted;
}

const LAPSED: Record<string, { status: string; code: string; message: string }> = {
  running: { status: "timed_out", code: "tool_timeout", message: "The call was still running past its deadline; cleanup marked it timed out." },
  awaiting_confirmation: { status: "expired", code: "confirmation_expired", message: "Nobody approved or denied the call in time; it expired." },
  authorized: { status: "expired", code: "result_not_reported", message: "The agent's runtime did not report a result in time; the call expired." },
};

/** Settles calls still waiting past their deadline: running ones time out, unanswered or unreported ones expire. */
export async function settleLapsedCalls(db: Db, nowSeconds: number, now: string): Promise<number> {
  let settled = 0;
  for await (const items of dueItems(db, RUNNING_PREFIX, nowSeconds)) {
    for (const item of items) {
      const from = String((item.call as { status?: unknown } | undefined)?.status);
      const lapsed = LAPSED[from];
      if (!lapsed) continue;
      const expiresAt = typeof item.expiresAt === "number" ? item.expiresAt : nowSeconds;
      const index = expiryIndex(item.pk, expiresAt);
      const applied = await whenCondition(db, () =>
        db.doc.send(
          new UpdateCommand({
            TableName: db.table,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression:
              "SET #call.#status = :to, #call.#error = :error, #call.finishedAt = :now, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk",
            ConditionExpression: "#call.#status = :from",
            ExpressionAttributeNames: { "#call": "call", "#status": "status", "#error": "error" },
            ExpressionAttributeValues: {
              ":to": lapsed.status,
              ":from": from,
              ":now": now,
              ":error": { code: lapsed.code, message: lapsed.message },
              ":gsi1pk": index.gsi1pk,
              ":gsi1sk": index.gsi1sk,
            },
          }),
        ),
      );
      if (!applied) continue;
      settled++;
      if (from === "awaiting_confirmation" || from === "authorized") await forgetPendingArguments(db, item.sk.slice("CALL#".length));
    }
  }
  return settled;
}
