import { DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { ReplayStore } from "./replay.js";
import { REPLAY_TABLE, REPLAY_TABLE_ENV } from "./replay-table.js";

export { REPLAY_TABLE, REPLAY_TABLE_ENV } from "./replay-table.js";

export type DynamoReplayOptions = {
  /** The table's name; by default TOOLGATE_REPLAY_TABLE. */
  tableName?: string;
  /** The client to write with; by default one of the function's own region and credentials. */
  client?: DynamoDBClient;
};

/**
 * The token ids every instance of a module accepted, in one DynamoDB table: one conditional PutItem per call, which
 * only the first instance to record an id wins, so a token replayed to another instance (another Lambda container) is
 * refused too. Items carry their token's `exp` as their TTL. A write that fails otherwise fails the request: nothing
 * runs on a token whose first use could not be recorded.
 */
export function dynamoReplayStore({ tableName = process.env[REPLAY_TABLE_ENV], client }: DynamoReplayOptions = {}): ReplayStore {
  if (!tableName) throw new Error(`dynamoReplayStore needs its table: give it a tableName, or set ${REPLAY_TABLE_ENV} (ToolgateModule's replayTable does).`);
  let dynamo = client;
  return {
    async claim(jti, expiresAt) {
      const put = new PutItemCommand({
        TableName: tableName,
        Item: { [REPLAY_TABLE.hashKey]: { S: jti }, [REPLAY_TABLE.ttl]: { N: String(expiresAt) } },
        ConditionExpression: "attribute_not_exists(#jti)",
        ExpressionAttributeNames: { "#jti": REPLAY_TABLE.hashKey },
      });
      try {
        await (dynamo ??= new DynamoDBClient({})).send(put);
        return true;
      } catch (error) {
        if ((error as { name?: unknown } | null)?.name === "ConditionalCheckFailedException") return false;
        throw error;
      }
    },
  };
}
