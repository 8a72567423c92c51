import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from "@aws-sdk/client-dynamodb-streams";
import type { StreamRecord } from "@toolgate/core/events";

const LOCAL = { region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } };

/** Every record of a table's stream so far, from its start, as the CallEvents subscriber would be handed them. */
export async function streamRecords(endpoint: string, table: string): Promise<StreamRecord[]> {
  const tables = new DynamoDBClient({ endpoint, ...LOCAL });
  const streams = new DynamoDBStreamsClient({ endpoint, ...LOCAL });
  try {
    const { Table } = await tables.send(new DescribeTableCommand({ TableName: table }));
    const StreamArn = Table?.LatestStreamArn;
    if (!StreamArn) throw new Error(`The table ${table} has no stream.`);
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
    const records: StreamRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }));
      while (ShardIterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator }));
        if (!page.Records?.length) break;
        records.push(...(page.Records as StreamRecord[]));
        ShardIterator = page.NextShardIterator;
      }
    }
    return records;
  } finally {
    tables.destroy();
    streams.destroy();
  }
}
