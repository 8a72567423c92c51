import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient, ScalarAttributeType } from "@aws-sdk/client-dynamodb";
import { TABLE } from "@toolgate/core/table";

const attributes = Object.entries(TABLE.fields).map(([AttributeName, type]) => ({
  AttributeName,
  AttributeType: (({ number: "N", binary: "B" } as Record<string, ScalarAttributeType>)[type as string] ?? "S") as ScalarAttributeType,
}));

const globalIndex = ([IndexName, index]: [string, { hashKey: string; rangeKey: string; projection?: "keys-only" }]) => ({
  IndexName,
  KeySchema: [
    { AttributeName: index.hashKey, KeyType: "HASH" as const },
    { AttributeName: index.rangeKey, KeyType: "RANGE" as const },
  ],
  Projection: { ProjectionType: index.projection === "keys-only" ? ("KEYS_ONLY" as const) : ("ALL" as const) },
});

async function untilActive(client: DynamoDBClient, tableName: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === undefined || index.IndexStatus === "ACTIVE");
    if (Table?.TableStatus === "ACTIVE" && indexesActive) return Table;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

/** A table kept from an earlier version gets the indexes added since, one at a time (as DynamoDB requires). */
async function addMissingIndexes(client: DynamoDBClient, tableName: string) {
  const table = await untilActive(client, tableName);
  const present = new Set((table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const entry of Object.entries(TABLE.globalIndexes)) {
    if (present.has(entry[0])) continue;
    await client.send(
      new UpdateTableCommand({ TableName: tableName, AttributeDefinitions: attributes, GlobalSecondaryIndexUpdates: [{ Create: globalIndex(entry) }] }),
    );
    await untilActive(client, tableName);
  }
}

const STREAM = { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" as const };

/** A table kept from an earlier version gets the stream call events are published from. */
async function addStream(client: DynamoDBClient, tableName: string) {
  const table = await untilActive(client, tableName);
  if (table?.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
  await untilActive(client, tableName);
}

/** Creates the table from the same definition infra/storage.ts deploys, if it is not there yet. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<"created" | "exists"> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: attributes,
        KeySchema: [
          { AttributeName: TABLE.primaryIndex.hashKey, KeyType: "HASH" },
          { AttributeName: TABLE.primaryIndex.rangeKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: Object.entries(TABLE.globalIndexes).map(globalIndex),
        StreamSpecification: STREAM,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, tableName);
    await addStream(client, tableName);
    return "exists";
  }
  await untilActive(client, tableName);
  return "created";
}
