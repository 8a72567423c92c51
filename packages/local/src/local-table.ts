import { CreateTableCommand, DescribeTableCommand, ResourceInUseException } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient, ScalarAttributeType } from "@aws-sdk/client-dynamodb";
import { TABLE } from "@toolgate/core/table";

/** Creates the table from the same definition infra/storage.ts deploys, if it is not there yet. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<"created" | "exists"> {
  const attributes = Object.entries(TABLE.fields).map(([AttributeName, type]) => ({
    AttributeName,
    AttributeType: (({ number: "N", binary: "B" } as Record<string, ScalarAttributeType>)[type as string] ?? "S") as ScalarAttributeType,
  }));
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
        GlobalSecondaryIndexes: Object.entries(TABLE.globalIndexes).map(([IndexName, index]) => ({
          IndexName,
          KeySchema: [
            { AttributeName: index.hashKey, KeyType: "HASH" },
            { AttributeName: index.rangeKey, KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        })),
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return "exists";
    throw error;
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === "ACTIVE") break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return "created";
}
