import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export type Db = {
  doc: DynamoDBDocumentClient;
  client: DynamoDBClient;
  table: string;
};

export type DbOptions = {
  table: string;
  endpoint?: string;
  region?: string;
  /** Called once per DynamoDB request actually sent (a round trip), with the operation name. */
  onRoundTrip?: (operation: string) => void;
};

export function createDb(options: DbOptions): Db {
  const local = options.endpoint !== undefined;
  const client = new DynamoDBClient({
    ...(local
      ? {
          endpoint: options.endpoint,
          region: options.region ?? "us-east-1",
          credentials: { accessKeyId: "local", secretAccessKey: "local" },
        }
      : options.region
        ? { region: options.region }
        : {}),
    maxAttempts: 4,
  });
  if (options.onRoundTrip) {
    const onRoundTrip = options.onRoundTrip;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        onRoundTrip(String(context.commandName ?? "unknown").replace(/Command$/, ""));
        return next(args);
      },
      { step: "finalizeRequest", name: "toolgateRoundTripCounter" },
    );
  }
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { doc, client, table: options.table };
}
