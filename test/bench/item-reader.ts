import { GetItemCommand, QueryCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient, QueryCommandInput, ScanCommandInput } from "@aws-sdk/client-dynamodb";
import type { DynamoRequest } from "./dynamo-record";
import { pruneExpressionAttributes } from "./requests";
import { keyId } from "./table-shape";
import type { Item, TableShape } from "./table-shape";

/** Reads items as stored (marshalled, so their sizes are exact), outside any measured time. */
export class ItemReader {
  constructor(
    private readonly client: DynamoDBClient,
    readonly shape: TableShape,
  ) {}

  async item(key: Item): Promise<Item | null> {
    const { Item } = await this.client.send(new GetItemCommand({ TableName: this.shape.table, Key: key, ConsistentRead: true }));
    return Item ?? null;
  }

  /** The items at these keys now, by keyId (null where there is none). */
  async items(keys: readonly Item[]): Promise<Map<string, Item | null>> {
    const found = new Map<string, Item | null>();
    for (const key of keys) {
      const id = keyId(key, this.shape);
      if (!found.has(id)) found.set(id, await this.item(key));
    }
    return found;
  }

  /** The items a Query or Scan read (billing counts them before any filter): the same page, whole items. */
  async scanned(request: DynamoRequest): Promise<Item[]> {
    const input = structuredClone(request.input);
    for (const field of ["FilterExpression", "ProjectionExpression", "Select", "ReturnConsumedCapacity"]) delete input[field];
    pruneExpressionAttributes(input);
    const { Items } =
      request.operation === "Query"
        ? await this.client.send(new QueryCommand(input as QueryCommandInput))
        : await this.client.send(new ScanCommand(input as ScanCommandInput));
    return Items ?? [];
  }
}
