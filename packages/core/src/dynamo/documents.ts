import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  ScanCommand as ScanItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient, WriteRequest } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type {
  BatchGetCommandOutput,
  BatchWriteCommandOutput,
  DeleteCommandOutput,
  GetCommandOutput,
  PutCommandOutput,
  QueryCommandOutput,
  ScanCommandOutput,
  TransactWriteCommandOutput,
  UpdateCommandOutput,
} from "@aws-sdk/lib-dynamodb";
import { fromAttributes, toAttributes } from "./attributes";
import type { Attributes, Values } from "./attributes";

type DocumentCommand = GetCommand | PutCommand | UpdateCommand | DeleteCommand | QueryCommand | ScanCommand | BatchGetCommand | BatchWriteCommand | TransactWriteCommand;
type SendOptions = { abortSignal?: AbortSignal };

const toAttributesIf = (values: Values | undefined) => (values === undefined ? undefined : toAttributes(values));

/** The legacy parameters that carry values outside expressions: toolgate writes expressions, so they are not converted. */
const LEGACY_PARAMETERS = ["Expected", "AttributeUpdates", "KeyConditions", "QueryFilter", "ScanFilter"] as const;

function expressionsOnly<I extends object>(input: I): I {
  const legacy = LEGACY_PARAMETERS.find((name) => name in input);
  if (legacy) throw new Error(`${legacy} is a legacy DynamoDB parameter that toolgate does not send: write it as an expression.`);
  return input;
}

/** The parts of a write that carry values: its item or key, and the values its expressions name. */
const valuesOfWrite = <W extends { Item?: Values; Key?: Values; ExpressionAttributeValues?: Values }>(write: W) => ({
  ...expressionsOnly(write),
  ...(write.Item && { Item: toAttributes(write.Item) }),
  ...(write.Key && { Key: toAttributes(write.Key) }),
  ...(write.ExpressionAttributeValues && { ExpressionAttributeValues: toAttributes(write.ExpressionAttributeValues) }),
});

/** A single write's answer, with the item's attributes it returned (ReturnValues) as values. */
const withAttributes = <O extends { Attributes?: Attributes }>(output: O) => ({ ...output, ...(output.Attributes && { Attributes: fromAttributes(output.Attributes) }) });

const toWriteRequest = (request: { PutRequest?: { Item?: Values }; DeleteRequest?: { Key?: Values } }): WriteRequest => ({
  ...(request.PutRequest && { PutRequest: { Item: toAttributes(request.PutRequest.Item ?? {}) } }),
  ...(request.DeleteRequest && { DeleteRequest: { Key: toAttributes(request.DeleteRequest.Key ?? {}) } }),
});
const fromWriteRequest = (request: WriteRequest) => ({
  ...(request.PutRequest && { PutRequest: { Item: fromAttributes(request.PutRequest.Item ?? {}) } }),
  ...(request.DeleteRequest && { DeleteRequest: { Key: fromAttributes(request.DeleteRequest.Key ?? {}) } }),
});

const mapValues = <A, B>(record: Record<string, A>, to: (value: A) => B) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, to(value)]));

/**
 * DynamoDB's document commands (`@aws-sdk/lib-dynamodb`) sent as the plain commands they stand for, their values
 * converted as the document client converts JSON values, and beyond it: what DynamoDB's types cannot hold is kept as
 * JSON text (`toAttribute`), so any JSON value is stored and read back as it was. The client can then keep each command's
 * resolved middleware (`cacheMiddleware`), which the document client cannot: with the document client's own
 * middleware gone too, a request costs the process about a third less (the bench's dynamodb_client_request_us_*).
 */
export class Documents {
  constructor(private readonly client: DynamoDBClient) {}

  send(command: GetCommand, options?: SendOptions): Promise<GetCommandOutput>;
  send(command: PutCommand, options?: SendOptions): Promise<PutCommandOutput>;
  send(command: UpdateCommand, options?: SendOptions): Promise<UpdateCommandOutput>;
  send(command: DeleteCommand, options?: SendOptions): Promise<DeleteCommandOutput>;
  send(command: QueryCommand, options?: SendOptions): Promise<QueryCommandOutput>;
  send(command: ScanCommand, options?: SendOptions): Promise<ScanCommandOutput>;
  send(command: BatchGetCommand, options?: SendOptions): Promise<BatchGetCommandOutput>;
  send(command: BatchWriteCommand, options?: SendOptions): Promise<BatchWriteCommandOutput>;
  send(command: TransactWriteCommand, options?: SendOptions): Promise<TransactWriteCommandOutput>;
  async send(command: DocumentCommand, options?: SendOptions): Promise<unknown> {
    // A request sent with options is resolved afresh, and the client then forgets what it kept: only probes pass them.
    const client: Pick<DynamoDBClient, "send"> = options ? { send: ((plain: any) => this.client.send(plain, options)) as DynamoDBClient["send"] } : this.client;
    if (command instanceof GetCommand) {
      const { input } = command;
      const output = await client.send(new GetItemCommand({ ...input, Key: toAttributes(input.Key ?? {}) }));
      return { ...output, ...(output.Item && { Item: fromAttributes(output.Item) }) };
    }
    if (command instanceof PutCommand) return withAttributes(await client.send(new PutItemCommand(valuesOfWrite(command.input) as PutItemCommand["input"])));
    if (command instanceof UpdateCommand) return withAttributes(await client.send(new UpdateItemCommand(valuesOfWrite(command.input) as UpdateItemCommand["input"])));
    if (command instanceof DeleteCommand) return withAttributes(await client.send(new DeleteItemCommand(valuesOfWrite(command.input) as DeleteItemCommand["input"])));
    if (command instanceof QueryCommand || command instanceof ScanCommand) {
      const input = expressionsOnly(command.input);
      const plain = { ...input, ExclusiveStartKey: toAttributesIf(input.ExclusiveStartKey), ExpressionAttributeValues: toAttributesIf(input.ExpressionAttributeValues) };
      const output = await client.send(command instanceof QueryCommand ? new QueryItemsCommand(plain as QueryItemsCommand["input"]) : new ScanItemsCommand(plain as ScanItemsCommand["input"]));
      return {
        ...output,
        ...(output.Items && { Items: output.Items.map(fromAttributes) }),
        ...(output.LastEvaluatedKey && { LastEvaluatedKey: fromAttributes(output.LastEvaluatedKey) }),
      };
    }
    if (command instanceof BatchGetCommand) {
      const { input } = command;
      const RequestItems = mapValues(input.RequestItems ?? {}, (keys) => ({ ...keys, Keys: keys.Keys?.map(toAttributes) }));
      const output = await client.send(new BatchGetItemCommand({ ...input, RequestItems } as BatchGetItemCommand["input"]));
      return {
        ...output,
        ...(output.Responses && { Responses: mapValues(output.Responses, (items) => items.map(fromAttributes)) }),
        ...(output.UnprocessedKeys && { UnprocessedKeys: mapValues(output.UnprocessedKeys, (keys) => ({ ...keys, Keys: keys.Keys?.map(fromAttributes) })) }),
      };
    }
    if (command instanceof BatchWriteCommand) {
      const { input } = command;
      const RequestItems = mapValues(input.RequestItems ?? {}, (requests) => requests.map(toWriteRequest));
      const output = await client.send(new BatchWriteItemCommand({ ...input, RequestItems } as BatchWriteItemCommand["input"]));
      return { ...output, ...(output.UnprocessedItems && { UnprocessedItems: mapValues(output.UnprocessedItems, (requests) => requests.map(fromWriteRequest)) }) };
    }
    if (command instanceof TransactWriteCommand) {
      const { input } = command;
      const TransactItems = input.TransactItems?.map((item) => ({
        ...(item.ConditionCheck && { ConditionCheck: valuesOfWrite(item.ConditionCheck) }),
        ...(item.Put && { Put: valuesOfWrite(item.Put) }),
        ...(item.Delete && { Delete: valuesOfWrite(item.Delete) }),
        ...(item.Update && { Update: valuesOfWrite(item.Update) }),
      }));
      return client.send(new TransactWriteItemsCommand({ ...input, TransactItems } as TransactWriteItemsCommand["input"]));
    }
    throw new Error(`${(command as object).constructor.name} is not a document command toolgate sends.`);
  }
}
