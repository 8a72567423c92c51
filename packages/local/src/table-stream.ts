import { DynamoDBClient, DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from "@aws-sdk/client-dynamodb-streams";
import type { _Record } from "@aws-sdk/client-dynamodb-streams";
import { LOCAL_REGION } from "./dynamo-process";
import type { AccessKeyPair } from "./secrets";

export type StreamOptions = {
  endpoint: string;
  /** The key whose database holds the table. */
  credentials: AccessKeyPair;
  table: string;
  /** Gets each batch of records, as a Lambda subscribed to the table's stream does on AWS. */
  deliver: (records: _Record[]) => Promise<void>;
  log: (line: string) => void;
  pollMs?: number;
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The table's stream, read the way Lambda's event source mapping reads it on AWS: every shard from where the stream
 * stood when polling began, in order, each batch delivered before the next is read. Survives DynamoDB Local restarts
 * (a new stream is picked up). Stop it with the returned function.
 */
export function pollTableStream(options: StreamOptions): () => Promise<void> {
  const local = { endpoint: options.endpoint, region: LOCAL_REGION, credentials: options.credentials };
  const tables = new DynamoDBClient(local);
  const streams = new DynamoDBStreamsClient(local);
  let stopped = false;
  let streamArn: string | undefined;
  /** Each shard's next iterator (undefined once a closed shard is read to its end) and the last record delivered from it. */
  const iterators = new Map<string, string | undefined>();
  const delivered = new Map<string, string>();

  /** The stream's shards: those there when polling began from their end, later ones from their start, known ones after what was delivered. */
  async function refreshShards(firstLook: boolean) {
    const { Table } = await tables.send(new DescribeTableCommand({ TableName: options.table }));
    if (Table?.LatestStreamArn !== streamArn) {
      streamArn = Table?.LatestStreamArn;
      iterators.clear();
      delivered.clear();
    }
    if (!streamArn) return;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || iterators.has(id)) continue;
      const after = delivered.get(id);
      const position = after
        ? { ShardIteratorType: "AFTER_SEQUENCE_NUMBER" as const, SequenceNumber: after }
        : { ShardIteratorType: firstLook ? ("LATEST" as const) : ("TRIM_HORIZON" as const) };
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ...position }));
      iterators.set(id, ShardIterator);
    }
  }

  async function readShards() {
    for (const [shard, iterator] of iterators) {
      if (!iterator) continue;
      const { Records, NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      if (Records?.length) {
        await options.deliver(Records);
        const last = Records.at(-1)?.dynamodb?.SequenceNumber;
        if (last) delivered.set(shard, last);
      }
      iterators.set(shard, NextShardIterator);
    }
  }

  const running = (async () => {
    let firstLook = true;
    while (!stopped) {
      try {
        await refreshShards(firstLook);
        firstLook = false;
        await readShards();
      } catch (error) {
        if (!stopped) options.log(`table stream: ${error instanceof Error ? error.message : String(error)}; reading on shortly`);
        iterators.clear();
        await sleep(1_000);
      }
      await sleep(options.pollMs ?? 100);
    }
  })();

  return async () => {
    stopped = true;
    await running;
    tables.destroy();
    streams.destroy();
  };
}
