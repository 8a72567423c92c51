import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { AttributeValue, DynamoDBClient, KeySchemaElement } from "@aws-sdk/client-dynamodb";

export type Item = Record<string, AttributeValue>;

export type IndexShape = {
  name: string;
  hashKey: string;
  rangeKey?: string;
  projection: "ALL" | "KEYS_ONLY" | "INCLUDE";
  include: string[];
};

/** The table's keys and global secondary indexes, as DynamoDB describes them. */
export type TableShape = { table: string; hashKey: string; rangeKey?: string; indexes: IndexShape[] };

const keyNamed = (schema: KeySchemaElement[] | undefined, type: "HASH" | "RANGE") =>
  schema?.find((element) => element.KeyType === type)?.AttributeName;

export async function describeTable(client: DynamoDBClient, table: string): Promise<TableShape> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const hashKey = keyNamed(Table?.KeySchema, "HASH");
  if (!hashKey) throw new Error(`the table ${table} has no hash key`);
  return {
    table,
    hashKey,
    rangeKey: keyNamed(Table?.KeySchema, "RANGE"),
    indexes: (Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
      name: index.IndexName ?? "unnamed",
      hashKey: keyNamed(index.KeySchema, "HASH") ?? "",
      rangeKey: keyNamed(index.KeySchema, "RANGE"),
      projection: (index.Projection?.ProjectionType ?? "ALL") as IndexShape["projection"],
      include: index.Projection?.NonKeyAttributes ?? [],
    })),
  };
}

export function keyOf(item: Item, shape: TableShape): Item {
  const key: Item = { [shape.hashKey]: item[shape.hashKey]! };
  if (shape.rangeKey) key[shape.rangeKey] = item[shape.rangeKey]!;
  return key;
}

/** A string that names one item, for maps and sets. */
export const keyId = (key: Item, shape: TableShape) =>
  JSON.stringify([key[shape.hashKey], shape.rangeKey ? key[shape.rangeKey] : null]);
